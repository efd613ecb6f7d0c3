package dev.kreactor.driver;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A KafkaShareConsumer (KIP-932) and its commands: subscribe, unsubscribe, poll, acknowledge,
 * commitSync, commitAsync, setAcknowledgementCommitCallback, subscription, close.
 */
final class ShareSession extends Session {
    private final KafkaShareConsumer<byte[], byte[]> consumer;
    /** The last poll's records by "topic/partition/offset"; touched only on the app thread. */
    private final Map<String, ConsumerRecord<byte[], byte[]>> lastBatch = new HashMap<>();

    ShareSession(App app, Properties props) {
        super(app);
        consumer = new KafkaShareConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        bind(consumer::wakeup, consumer.metrics());

        commonHandlers(consumer::unsubscribe, consumer::subscription, consumer::close, consumer::close);
        handlers.put("subscribe", call -> {
            List<String> topics = call.cmd.strings("topics");
            call.time(() -> consumer.subscribe(topics));
            return null;
        });
        handlers.put("poll", this::poll);
        handlers.put("acknowledge", this::acknowledge);
        handlers.put("commitSync", this::commitSync);
        handlers.put("commitAsync", call -> {
            call.time(consumer::commitAsync);
            return null;
        });
        handlers.put("setAcknowledgementCommitCallback", call -> {
            boolean on = call.cmd.bool("enabled", true);
            call.time(() -> consumer.setAcknowledgementCommitCallback(on ? this::ackCommitted : null));
            return null;
        });
    }

    @Override
    String kind() {
        return "share";
    }

    @Override
    String implementation() {
        return "KafkaShareConsumer";
    }

    private static String key(String t, int p, long o) {
        return t + "/" + p + "/" + o;
    }

    /** poll {"timeoutMs": N}: the acquired records, each with its delivery count "dc". */
    private Map<String, Object> poll(Call call) {
        return pollReply(call, consumer::poll, true, recs -> {
            lastBatch.clear();
            for (ConsumerRecord<byte[], byte[]> r : recs) {
                lastBatch.put(key(r.topic(), r.partition(), r.offset()), r);
            }
        });
    }

    /**
     * acknowledge {"t", "p", "o", "type": ACCEPT|RELEASE|REJECT|RENEW}: a record of the last
     * poll by its coordinates (Java's acknowledge(record, type)); any other offset goes to
     * acknowledge(topic, partition, offset, type) where the release has it, so Java itself
     * decides. A type the release lacks is an Unsupported error.
     */
    private Map<String, Object> acknowledge(Call call) {
        Command c = call.cmd;
        String t = c.string("t");
        int p = c.intValue("p");
        long o = c.longValue("o");
        AcknowledgeType type = ackType(c.string("type"));
        ConsumerRecord<byte[], byte[]> r = lastBatch.get(key(t, p, o));
        if (r != null) {
            call.time(() -> consumer.acknowledge(r, type));
            return null;
        }
        try {
            call.time(() -> consumer.acknowledge(t, p, o, type));
        } catch (NoSuchMethodError e) {
            throw new Unsupported("acknowledge(" + key(t, p, o)
                    + ") of a record not returned by the last poll (needs acknowledge(topic, partition, offset, type))", e);
        }
        return null;
    }

    /** The types KIP-932 and its follow-ups define; a release may lack the later ones. */
    private static final List<String> KNOWN_TYPES = List.of("ACCEPT", "RELEASE", "REJECT", "RENEW");

    private static AcknowledgeType ackType(String name) {
        try {
            return AcknowledgeType.valueOf(name);
        } catch (IllegalArgumentException e) {
            if (KNOWN_TYPES.contains(name)) {
                throw new Unsupported("AcknowledgeType." + name, null);
            }
            throw new BadCommand("acknowledge: \"type\" must be one of " + KNOWN_TYPES + ", got \"" + name + "\"");
        }
    }

    /**
     * commitSync {"timeoutMs"?: N}: the per-partition results, [{"t","p","id","error"}], error
     * null where the broker accepted the acknowledgements.
     */
    private Map<String, Object> commitSync(Call call) {
        Map<TopicIdPartition, Optional<KafkaException>> res;
        if (call.cmd.has("timeoutMs")) {
            Duration d = timeout(call);
            res = call.time(() -> consumer.commitSync(d));
        } else {
            res = call.time(() -> consumer.commitSync());
        }
        List<Object> out = new ArrayList<>();
        for (Map.Entry<TopicIdPartition, Optional<KafkaException>> e : res.entrySet()) {
            Map<String, Object> m = Wire.sharePartition(e.getKey());
            m.put("error", e.getValue().isPresent() ? Errors.describe(e.getValue().get()) : null);
            out.add(m);
        }
        return Map.of("results", out);
    }

    /** The acknowledgement commit callback: an "ackCommitCallback" event, on the app thread. */
    private void ackCommitted(Map<TopicIdPartition, java.util.Set<Long>> offsets, Exception err) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("offsets", Wire.ackOffsets(offsets));
        m.put("error", err == null ? null : Errors.describe(err));
        callbackEvent("ackCommitCallback", m);
    }
}
