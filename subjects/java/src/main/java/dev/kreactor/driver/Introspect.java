package dev.kreactor.driver;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * The reader-thread commands that look at the process without touching the consumer's
 * application API: "metrics" (the consumer's own metrics) and "threads" (JVM per-thread CPU).
 */
final class Introspect {
    private Introspect() {}

    /**
     * metrics {"names"?: [...], "groups"?: [...]}: every metric whose name is in names and whose
     * group is in groups (a missing list matches all), as [{"group", "name", "tags", "value"}].
     * A value is a number (NaN as the string "NaN") or a string.
     */
    static Map<String, Object> metrics(Session s, Command c) {
        Set<String> names = c.has("names") ? new HashSet<>(c.strings("names")) : null;
        Set<String> groups = c.has("groups") ? new HashSet<>(c.strings("groups")) : null;
        List<Object> out = new ArrayList<>();
        long t0 = System.nanoTime();
        for (Map.Entry<MetricName, ? extends Metric> e : s.metrics().entrySet()) {
            MetricName n = e.getKey();
            if ((names != null && !names.contains(n.name())) || (groups != null && !groups.contains(n.group()))) {
                continue;
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("group", n.group());
            m.put("name", n.name());
            m.put("tags", new LinkedHashMap<>(n.tags()));
            Object v = e.getValue().metricValue();
            m.put("value", v instanceof Number || v instanceof String || v == null ? v : String.valueOf(v));
            out.add(m);
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("readNs", System.nanoTime() - t0);
        r.put("metrics", out);
        return r;
    }

    /**
     * threads: [{"id", "name", "cpuNs", "userNs", "state"}] for every live JVM thread
     * (ThreadMXBean; -1 where CPU time is unavailable), and "processCpuNs".
     */
    static Map<String, Object> threads() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        List<Object> out = new ArrayList<>();
        for (ThreadInfo ti : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (ti == null) {
                continue; // exited meanwhile
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", ti.getThreadId());
            m.put("name", ti.getThreadName());
            m.put("cpuNs", mx.getThreadCpuTime(ti.getThreadId()));
            m.put("userNs", mx.getThreadUserTime(ti.getThreadId()));
            m.put("state", ti.getThreadState().name());
            out.add(m);
        }
        Map<String, Object> r = new LinkedHashMap<>();
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            r.put("processCpuNs", ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime());
        }
        r.put("threads", out);
        return r;
    }
}
