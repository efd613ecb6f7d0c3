package dev.kreactor.driver;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A KafkaConsumer (group.protocol=consumer or classic, from the config) and its commands:
 * subscribe, unsubscribe, assign, seek, seekToBeginning, seekToEnd, position, committed, pause,
 * resume, paused, poll, commitSync, commitAsync, assignment, subscription, groupMetadata,
 * close. Keys and values are bytes.
 */
final class RegularSession extends Session {
    private final KafkaConsumer<byte[], byte[]> consumer;

    RegularSession(App app, Properties props) {
        super(app);
        consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        bind(consumer::wakeup, consumer.metrics());

        commonHandlers(consumer::unsubscribe, consumer::subscription, consumer::close, consumer::close);
        handlers.put("subscribe", this::subscribe);
        onPartitions("assign", consumer::assign);
        handlers.put("seek", call -> {
            TopicPartition tp = call.cmd.partition();
            long o = call.cmd.longValue("o");
            call.time(() -> consumer.seek(tp, o));
            return null;
        });
        onPartitions("seekToBeginning", consumer::seekToBeginning);
        onPartitions("seekToEnd", consumer::seekToEnd);
        handlers.put("position", call -> {
            TopicPartition tp = call.cmd.partition();
            Duration d = timeout(call);
            long pos = call.time(() -> consumer.position(tp, d));
            return Map.of("offset", pos);
        });
        handlers.put("committed", call -> {
            Set<TopicPartition> tps = new java.util.LinkedHashSet<>(call.cmd.partitions("partitions"));
            Duration d = timeout(call);
            Map<TopicPartition, OffsetAndMetadata> got = call.time(() -> consumer.committed(tps, d));
            List<Object> out = new ArrayList<>();
            for (TopicPartition tp : tps) {
                out.add(Wire.offset(tp, got.get(tp)));
            }
            return Map.of("offsets", out);
        });
        onPartitions("pause", consumer::pause);
        onPartitions("resume", consumer::resume);
        handlers.put("paused", call -> Map.of("partitions", Wire.partitions(call.time(consumer::paused))));
        handlers.put("poll", call -> pollReply(call, consumer::poll, false, recs -> { }));
        handlers.put("consume", call -> Consume.run(call, consumer));
        handlers.put("commitSync", this::commitSync);
        handlers.put("commitAsync", this::commitAsync);
        handlers.put("assignment", call -> Map.of("partitions", Wire.partitions(call.time(consumer::assignment))));
        handlers.put("groupMetadata", call -> {
            ConsumerGroupMetadata g = call.time(consumer::groupMetadata);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("groupId", g.groupId());
            m.put("generationId", g.generationId());
            m.put("memberId", g.memberId());
            m.put("groupInstanceId", g.groupInstanceId().orElse(null));
            return m;
        });
    }

    @Override
    String kind() {
        return "consumer";
    }

    @Override
    String implementation() {
        // KafkaConsumer delegates to AsyncKafkaConsumer (group.protocol=consumer) or
        // ClassicKafkaConsumer; the field is private, so this is best effort.
        try {
            Field f = KafkaConsumer.class.getDeclaredField("delegate");
            f.setAccessible(true);
            return f.get(consumer).getClass().getSimpleName();
        } catch (ReflectiveOperationException | RuntimeException e) {
            return "KafkaConsumer";
        }
    }

    /** name {"partitions": [...]}: fn with the partitions, timed. */
    private void onPartitions(String name, java.util.function.Consumer<List<TopicPartition>> fn) {
        handlers.put(name, call -> {
            List<TopicPartition> tps = call.cmd.partitions("partitions");
            call.time(() -> fn.accept(tps));
            return null;
        });
    }

    /** subscribe {"topics": [...], "listener": true}: the listener reports rebalance events. */
    private Map<String, Object> subscribe(Call call) {
        List<String> topics = call.cmd.strings("topics");
        if (call.cmd.bool("listener", true)) {
            ConsumerRebalanceListener l = new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> ps) {
                    rebalance("revoked", ps);
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> ps) {
                    rebalance("assigned", ps);
                }

                @Override
                public void onPartitionsLost(Collection<TopicPartition> ps) {
                    rebalance("lost", ps);
                }
            };
            call.time(() -> consumer.subscribe(topics, l));
        } else {
            call.time(() -> consumer.subscribe(topics));
        }
        return null;
    }

    private void rebalance(String what, Collection<TopicPartition> ps) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("kind", what);
        m.put("partitions", Wire.partitions(ps));
        callbackEvent("rebalance", m);
    }

    /**
     * commitSync {"timeoutMs"?: N, "offsets"?: [{"t","p","o","le"?,"md"?}]}: without offsets,
     * the consumed positions; without a timeout, default.api.timeout.ms.
     */
    private Map<String, Object> commitSync(Call call) {
        Command c = call.cmd;
        boolean timed = c.has("timeoutMs");
        Duration d = timed ? timeout(call) : null;
        if (c.has("offsets")) {
            Map<TopicPartition, OffsetAndMetadata> offs = Wire.commitOffsets(c, "offsets");
            call.time(() -> {
                if (timed) {
                    consumer.commitSync(offs, d);
                } else {
                    consumer.commitSync(offs);
                }
            });
        } else {
            call.time(() -> {
                if (timed) {
                    consumer.commitSync(d);
                } else {
                    consumer.commitSync();
                }
            });
        }
        return null;
    }

    /**
     * commitAsync {"offsets"?: [...]}: returns at once; the callback's result comes later as a
     * "commitCallback" event with "ref" = this command's id, when Java runs it on the application
     * thread during a later call ("during", "duringId").
     */
    private Map<String, Object> commitAsync(Call call) {
        long ref = call.cmd.id;
        OffsetCommitCallback cb = (offsets, err) -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("ref", ref);
            m.put("offsets", Wire.offsets(offsets));
            m.put("error", err == null ? null : Errors.describe(err));
            callbackEvent("commitCallback", m);
        };
        if (call.cmd.has("offsets")) {
            Map<TopicPartition, OffsetAndMetadata> offs = Wire.commitOffsets(call.cmd, "offsets");
            call.time(() -> consumer.commitAsync(offs, cb));
        } else {
            call.time(() -> consumer.commitAsync(cb));
        }
        return null;
    }
}
