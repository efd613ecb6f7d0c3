package dev.kreactor.driver;

import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;

/**
 * Kafka values as protocol values. Records: {"t", "p", "o", "le" (leader epoch, -1 unknown),
 * "ts" (ms), "tt" (timestamp type), "k"/"v" (base64, null for null), "h" ([{"k", "v"}]), and
 * for share records "dc" (delivery count)}. Partitions: {"t", "p"}. Offsets: {"t", "p", "o",
 * "le", "md"}.
 */
final class Wire {
    private Wire() {}

    private static final Base64.Encoder B64 = Base64.getEncoder();

    static Map<String, Object> record(ConsumerRecord<byte[], byte[]> r, boolean share) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("t", r.topic());
        m.put("p", r.partition());
        m.put("o", r.offset());
        m.put("le", r.leaderEpoch().orElse(-1));
        m.put("ts", r.timestamp());
        m.put("tt", r.timestampType().name);
        m.put("k", r.key() == null ? null : B64.encodeToString(r.key()));
        m.put("v", r.value() == null ? null : B64.encodeToString(r.value()));
        if (r.headers() != null) {
            List<Object> hs = new ArrayList<>();
            for (Header h : r.headers()) {
                Map<String, Object> hm = new LinkedHashMap<>();
                hm.put("k", h.key());
                hm.put("v", h.value() == null ? null : B64.encodeToString(h.value()));
                hs.add(hm);
            }
            if (!hs.isEmpty()) {
                m.put("h", hs);
            }
        }
        if (share) {
            m.put("dc", deliveryCount(r));
        }
        return m;
    }

    /** ConsumerRecord.deliveryCount() (KIP-932), or -1 where the release or record lacks it. */
    private static int deliveryCount(ConsumerRecord<byte[], byte[]> r) {
        try {
            Optional<Short> dc = r.deliveryCount();
            return dc.isPresent() ? dc.get() : -1;
        } catch (LinkageError e) {
            return -1;
        }
    }

    static Map<String, Object> partition(TopicPartition tp) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("t", tp.topic());
        m.put("p", tp.partition());
        return m;
    }

    static List<Object> partitions(Collection<TopicPartition> tps) {
        List<Object> out = new ArrayList<>();
        for (TopicPartition tp : tps) {
            out.add(partition(tp));
        }
        return out;
    }

    static Map<String, Object> offset(TopicPartition tp, OffsetAndMetadata om) {
        Map<String, Object> m = partition(tp);
        if (om == null) {
            m.put("o", null);
            return m;
        }
        m.put("o", om.offset());
        m.put("le", om.leaderEpoch().orElse(-1));
        m.put("md", om.metadata());
        return m;
    }

    static List<Object> offsets(Map<TopicPartition, OffsetAndMetadata> offsets) {
        List<Object> out = new ArrayList<>();
        if (offsets != null) {
            for (Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet()) {
                out.add(offset(e.getKey(), e.getValue()));
            }
        }
        return out;
    }

    /** A share partition: {"t", "p", "id" (topic id)}. */
    static Map<String, Object> sharePartition(TopicIdPartition tip) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("t", tip.topic());
        m.put("p", tip.partition());
        m.put("id", String.valueOf(tip.topicId()));
        return m;
    }

    /** Acknowledged offsets per share partition: [{"t", "p", "id", "offsets": [o...]}]. */
    static List<Object> ackOffsets(Map<TopicIdPartition, Set<Long>> offsets) {
        List<Object> out = new ArrayList<>();
        if (offsets != null) {
            for (Map.Entry<TopicIdPartition, Set<Long>> e : offsets.entrySet()) {
                Map<String, Object> m = sharePartition(e.getKey());
                m.put("offsets", new ArrayList<>(new TreeSet<>(e.getValue())));
                out.add(m);
            }
        }
        return out;
    }

    /** {"t","p","o","le"?,"md"?} entries as commit offsets. */
    static Map<TopicPartition, OffsetAndMetadata> commitOffsets(Command c, String key) {
        Map<TopicPartition, OffsetAndMetadata> out = new LinkedHashMap<>();
        for (Map<String, Object> m : c.objects(key)) {
            TopicPartition tp = c.partitionOf(m, key);
            Object o = m.get("o");
            if (!(o instanceof Long) || (Long) o < 0) {
                throw new BadCommand(c.name + ": " + key + " entry needs \"o\": offset >= 0, got " + Json.write(m));
            }
            Object le = m.get("le");
            Optional<Integer> epoch = Optional.empty();
            if (le instanceof Long && (Long) le >= 0) {
                epoch = Optional.of((int) (long) (Long) le);
            }
            Object md = m.get("md");
            out.put(tp, new OffsetAndMetadata((Long) o, epoch, md instanceof String ? (String) md : ""));
        }
        return out;
    }
}
