package dev.kreactor.driver;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.RuntimeMXBean;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * kreactor's Java driver: one KafkaConsumer or KafkaShareConsumer per process, driven over
 * line-delimited JSON (protocol in subjects/java/README.md).
 *
 * <p>Threads: this one ("kreactor-stdin") reads commands and answers wakeup, metrics, threads
 * and ping itself (wakeup must reach a blocked poll); every other command goes, in order, to the
 * application thread ("kreactor-app", {@link App}). stdout carries only protocol lines
 * (System.out is redirected to stderr); logs go to stderr. The process exits after "exit", when
 * stdin ends, or when stdout can no longer be written.
 */
public final class Main {
    private Main() {}

    /** The protocol revision; bumped on an incompatible change. */
    static final int PROTOCOL = 1;

    /** How long queued commands may run after stdin ends (ms; -Dkreactor.exitGraceMs). */
    static final long EXIT_GRACE_MS = 5000;

    /** AppInfoParser's class: moved to common.utils.internals in 4.4; looked up by name. */
    private static final String[] APP_INFO_PARSER = {
        "org.apache.kafka.common.utils.internals.AppInfoParser", "org.apache.kafka.common.utils.AppInfoParser",
    };

    private static volatile String version;
    private static volatile String commitId;

    /** The running kafka-clients release: AppInfoParser.getVersion(). */
    static String clientsVersion() {
        if (version == null) {
            version = appInfo("getVersion");
        }
        return version;
    }

    /** The running kafka-clients build's commit: AppInfoParser.getCommitId(). */
    static String clientsCommit() {
        if (commitId == null) {
            commitId = appInfo("getCommitId");
        }
        return commitId;
    }

    private static String appInfo(String method) {
        for (String cls : APP_INFO_PARSER) {
            try {
                return String.valueOf(Class.forName(cls).getMethod(method).invoke(null));
            } catch (ReflectiveOperationException | LinkageError e) {
                // try the next location
            }
        }
        return "unknown";
    }

    public static void main(String[] args) throws IOException {
        // Logging: slf4j-simple on stderr, WARN unless the JVM was told otherwise.
        defaultProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        defaultProperty("org.slf4j.simpleLogger.showDateTime", "true");
        defaultProperty("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
        defaultProperty("org.slf4j.simpleLogger.logFile", "System.err");

        Out out = new Out(new FileOutputStream(FileDescriptor.out));
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8));

        App app = new App(out);
        Thread appThread = new Thread(app, App.THREAD_NAME);
        appThread.setDaemon(true);
        appThread.setUncaughtExceptionHandler((t, e) -> fatal(out, t, e));
        appThread.start();
        Thread.currentThread().setName("kreactor-stdin");

        RuntimeMXBean rt = ManagementFactory.getRuntimeMXBean();
        Map<String, Object> ready = new LinkedHashMap<>();
        ready.put("protocol", PROTOCOL);
        ready.put("clientsVersion", clientsVersion());
        ready.put("clientsCommit", clientsCommit());
        ready.put("javaVersion", System.getProperty("java.version"));
        ready.put("javaVendor", System.getProperty("java.vendor"));
        ready.put("pid", ProcessHandle.current().pid());
        ready.put("jvmStartMs", rt.getStartTime());
        ready.put("jvmUptimeMs", rt.getUptime());
        out.event("ready", ready);

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 16);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            Command c;
            try {
                c = Command.parse(line);
            } catch (BadCommand e) {
                out.error(-1, e, -1);
                continue;
            }
            try {
                switch (c.name) {
                    case "wakeup":
                        app.requireSession("wakeup").wakeup();
                        out.ok(c.id, null, -1);
                        break;
                    case "metrics":
                        out.ok(c.id, Introspect.metrics(app.requireSession("metrics"), c), -1);
                        break;
                    case "threads":
                        out.ok(c.id, Introspect.threads(), -1);
                        break;
                    case "ping":
                        out.ok(c.id, null, -1);
                        break;
                    default:
                        app.submit(c);
                }
            } catch (RuntimeException e) {
                out.error(c.id, e, -1);
            }
        }
        // stdin ended: whoever drove us is done or gone. Commands already queued run first, for
        // at most EXIT_GRACE_MS (a poll may be blocked), then the process halts.
        System.err.println("kreactor driver: stdin closed; exiting after queued commands");
        app.submit(Command.endOfInput());
        try {
            Thread.sleep(Long.getLong("kreactor.exitGraceMs", EXIT_GRACE_MS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        System.err.println("kreactor driver: queued commands still running after stdin closed; halting");
        Runtime.getRuntime().halt(0);
    }

    private static void defaultProperty(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    private static void fatal(Out out, Thread t, Throwable e) {
        System.err.println("kreactor driver: thread " + t.getName() + " died: " + e);
        e.printStackTrace();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("thread", t.getName());
        m.put("error", Errors.describe(e));
        out.event("fatal", m);
        Runtime.getRuntime().halt(70);
    }
}
