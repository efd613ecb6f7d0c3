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
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
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
    private final Map<MetricName, ? extends Metric> metrics;

    RegularSession(App app, Properties props) {
        super(app);
        consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        metrics = consumer.metrics();

        handlers.put("subscribe", this::subscribe);
        handlers.put("unsubscribe", call -> {
            call.time(consumer::unsubscribe);
            return null;
        });
        handlers.put("assign", call -> {
            List<TopicPartition> tps = call.cmd.partitions("partitions");
            call.time(() -> consumer.assign(tps));
            return null;
        });
        handlers.put("seek", call -> {
            TopicPartition tp = call.cmd.partition();
            long o = call.cmd.longValue("o");
            call.time(() -> consumer.seek(tp, o));
            return null;
        });
        handlers.put("seekToBeginning", call -> {
            List<TopicPartition> tps = call.cmd.partitions("partitions");
            call.time(() -> consumer.seekToBeginning(tps));
            return null;
        });
        handlers.put("seekToEnd", call -> {
            List<TopicPartition> tps = call.cmd.partitions("partitions");
            call.time(() -> consumer.seekToEnd(tps));
            return null;
        });
        handlers.put("position", call -> {
            TopicPartition tp = call.cmd.partition();
            Duration d = Duration.ofMillis(call.cmd.millis("timeoutMs"));
            long pos = call.time(() -> consumer.position(tp, d));
            return Map.of("offset", pos);
        });
        handlers.put("committed", call -> {
            Set<TopicPartition> tps = new java.util.LinkedHashSet<>(call.cmd.partitions("partitions"));
            Duration d = Duration.ofMillis(call.cmd.millis("timeoutMs"));
            Map<TopicPartition, OffsetAndMetadata> got = call.time(() -> consumer.committed(tps, d));
            List<Object> out = new ArrayList<>();
            for (TopicPartition tp : tps) {
                out.add(Wire.offset(tp, got.get(tp)));
            }
            return Map.of("offsets", out);
        });
        handlers.put("pause", call -> {
            List<TopicPartition> tps = call.cmd.partitions("partitions");
            call.time(() -> consumer.pause(tps));
            return null;
        });
        handlers.put("resume", call -> {
            List<TopicPartition> tps = call.cmd.partitions("partitions");
            call.time(() -> consumer.resume(tps));
            return null;
        });
        handlers.put("paused", call -> Map.of("partitions", Wire.partitions(call.time(consumer::paused))));
        handlers.put("poll", this::poll);
        handlers.put("consume", call -> Consume.run(call, consumer));
        handlers.put("commitSync", this::commitSync);
        handlers.put("commitAsync", this::commitAsync);
        handlers.put("assignment", call -> Map.of("partitions", Wire.partitions(call.time(consumer::assignment))));
        handlers.put("subscription", call -> Map.of("topics", new ArrayList<>(call.time(consumer::subscription))));
        handlers.put("groupMetadata", call -> {
            ConsumerGroupMetadata g = call.time(consumer::groupMetadata);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("groupId", g.groupId());
            m.put("generationId", g.generationId());
            m.put("memberId", g.memberId());
            m.put("groupInstanceId", g.groupInstanceId().orElse(null));
            return m;
        });
        handlers.put("close", call -> {
            if (call.cmd.has("timeoutMs")) {
                Duration d = Duration.ofMillis(call.cmd.millis("timeoutMs"));
                call.time(() -> consumer.close(d));
            } else {
                call.time(() -> consumer.close());
            }
            return null;
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

    @Override
    void wakeup() {
        consumer.wakeup();
    }

    @Override
    Map<MetricName, ? extends Metric> metrics() {
        return metrics;
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

    /** poll {"timeoutMs": N}: the records Java returned (none when the timeout passed). */
    private Map<String, Object> poll(Call call) {
        Duration d = Duration.ofMillis(call.cmd.millis("timeoutMs"));
        ConsumerRecords<byte[], byte[]> recs = call.time(() -> consumer.poll(d));
        List<Object> out = new ArrayList<>(recs.count());
        for (ConsumerRecord<byte[], byte[]> r : recs) {
            out.add(Wire.record(r, false));
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("count", out.size());
        m.put("records", out);
        return m;
    }

    /**
     * commitSync {"timeoutMs"?: N, "offsets"?: [{"t","p","o","le"?,"md"?}]}: without offsets,
     * the consumed positions; without a timeout, default.api.timeout.ms.
     */
    private Map<String, Object> commitSync(Call call) {
        Command c = call.cmd;
        boolean timed = c.has("timeoutMs");
        Duration d = timed ? Duration.ofMillis(c.millis("timeoutMs")) : null;
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
