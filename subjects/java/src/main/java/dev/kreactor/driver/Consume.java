package dev.kreactor.driver;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * The "consume" command: poll inside Java until a number of records arrived, and report counts,
 * time and CPU, so the consumer's own rate is measured without the per-record JSON transfer of
 * "poll" (kreactor's side-by-side benchmark).
 *
 * <p>Arguments: {@code records} (records to receive, >= 0), {@code partitions} (first poll until
 * the assignment holds this many partitions, default 0), {@code timeoutMs} (bound on the whole
 * command), {@code pollMs} (each poll's timeout, default 100), {@code stampAt} (byte offset of
 * an 8-byte big-endian Unix-epoch nanosecond stamp in each value: report produce-to-poll
 * latency; default -1, none).
 *
 * <p>Reply: {@code count} (records received after the assignment was complete: the timed
 * part), {@code untimed} (records received while waiting for the assignment), {@code polls},
 * {@code elapsedNs} (wall time of the timed part), {@code cpuNs} (this JVM's process CPU over
 * the timed part, OperatingSystemMXBean.getProcessCpuTime; -1 unsupported), {@code allocBytes}
 * (bytes allocated by all threads over the timed part, com.sun.management.ThreadMXBean; -1
 * unsupported), {@code heapUsed} (bytes of heap in use at the end), {@code timedOut} and, with
 * {@code stampAt}, {@code latencyNs}: {"p50", "p90", "p99", "max", "n"}.
 */
final class Consume {
    private Consume() {}

    static Map<String, Object> run(Call call, KafkaConsumer<byte[], byte[]> consumer) {
        Command c = call.cmd;
        long want = c.longValue("records");
        if (want < 0) {
            throw new BadCommand("consume: argument \"records\" must be >= 0, got " + want);
        }
        int partitions = c.has("partitions") ? c.intValue("partitions") : 0;
        long timeoutMs = c.millis("timeoutMs");
        Duration pollD = Duration.ofMillis(c.has("pollMs") ? c.millis("pollMs") : 100);
        int stampAt = c.has("stampAt") ? c.intValue("stampAt") : -1;
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;

        long[] lat = stampAt >= 0 ? new long[(int) Math.min(want, 10_000_000L)] : null;
        long[] st = new long[6]; // untimed, count, polls, lats, elapsedNs, timedOut
        long[] cpu = new long[2];
        long[] alloc = new long[2];
        call.time(() -> {
            while (partitions > 0 && consumer.assignment().size() < partitions) {
                if (System.nanoTime() > deadline) {
                    st[5] = 1;
                    return;
                }
                st[0] += consumer.poll(pollD).count();
                st[2]++;
            }
            cpu[0] = processCpuNs();
            alloc[0] = allocatedBytes();
            long t0 = System.nanoTime();
            while (st[1] < want) {
                if (System.nanoTime() > deadline) {
                    st[5] = 1;
                    break;
                }
                ConsumerRecords<byte[], byte[]> recs = consumer.poll(pollD);
                st[2]++;
                if (recs.isEmpty()) {
                    continue;
                }
                long now = lat != null ? epochNanos() : 0;
                for (ConsumerRecord<byte[], byte[]> r : recs) {
                    st[1]++;
                    byte[] v = r.value();
                    if (lat != null && v != null && v.length >= stampAt + 8 && st[3] < lat.length) {
                        lat[(int) st[3]++] = now - stamp(v, stampAt);
                    }
                }
            }
            st[4] = System.nanoTime() - t0;
            cpu[1] = processCpuNs();
            alloc[1] = allocatedBytes();
        });
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("count", st[1]);
        m.put("untimed", st[0]);
        m.put("polls", st[2]);
        m.put("elapsedNs", st[4]);
        m.put("cpuNs", cpu[0] < 0 || cpu[1] < 0 ? -1L : cpu[1] - cpu[0]);
        m.put("allocBytes", alloc[0] < 0 || alloc[1] < 0 ? -1L : alloc[1] - alloc[0]);
        Runtime rt = Runtime.getRuntime();
        m.put("heapUsed", rt.totalMemory() - rt.freeMemory());
        m.put("timedOut", st[5] == 1);
        if (lat != null) {
            long[] l = Arrays.copyOf(lat, (int) st[3]);
            Arrays.sort(l);
            Map<String, Object> q = new LinkedHashMap<>();
            q.put("n", (long) l.length);
            q.put("p50", quantile(l, 0.50));
            q.put("p90", quantile(l, 0.90));
            q.put("p99", quantile(l, 0.99));
            q.put("max", l.length == 0 ? -1L : l[l.length - 1]);
            m.put("latencyNs", q);
        }
        return m;
    }

    /** The q-quantile of sorted values by the nearest-rank method; -1 when empty. */
    private static long quantile(long[] sorted, double q) {
        if (sorted.length == 0) {
            return -1;
        }
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    private static long stamp(byte[] v, int at) {
        long x = 0;
        for (int i = 0; i < 8; i++) {
            x = (x << 8) | (v[at + i] & 0xff);
        }
        return x;
    }

    private static long epochNanos() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    private static long processCpuNs() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
        }
        return -1;
    }

    private static long allocatedBytes() {
        java.lang.management.ThreadMXBean t = ManagementFactory.getThreadMXBean();
        if (t instanceof com.sun.management.ThreadMXBean) {
            com.sun.management.ThreadMXBean st = (com.sun.management.ThreadMXBean) t;
            if (st.isThreadAllocatedMemorySupported() && st.isThreadAllocatedMemoryEnabled()) {
                return st.getTotalThreadAllocatedBytes();
            }
        }
        return -1;
    }
}
