package dev.kreactor.driver;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The protocol's output: one JSON object per line on the process's original stdout, written by
 * the reader thread and the application thread alike (each line whole: the methods are
 * synchronized, and every line is flushed before the call returns).
 *
 * <p>A reply is {@code {"id": N, "ok": true, ...}} or {@code {"id": N, "ok": false, "error":
 * {...}}}; an event is {@code {"event": "name", ...}}. A write failure (the parent closed our
 * stdout) ends the process: nobody is left to read us.
 */
final class Out {
    private final OutputStream out;

    Out(OutputStream out) {
        this.out = out;
    }

    /** A successful reply to command {@code id} with the fields of {@code body} (may be null). */
    void ok(long id, Map<String, Object> body, long durNs) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("ok", true);
        if (durNs >= 0) {
            m.put("durNs", durNs);
        }
        if (body != null) {
            m.putAll(body);
        }
        line(m);
    }

    /** A failed reply to command {@code id} (id -1 when the line could not be read). */
    void error(long id, Throwable t, long durNs) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("ok", false);
        if (durNs >= 0) {
            m.put("durNs", durNs);
        }
        m.put("error", Errors.describe(t));
        line(m);
    }

    /** An asynchronous event named {@code name} with the fields of {@code body}. */
    void event(String name, Map<String, Object> body) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("event", name);
        m.putAll(body);
        line(m);
    }

    synchronized void line(Map<String, Object> m) {
        StringBuilder b = new StringBuilder(256);
        Json.write(b, m);
        b.append('\n');
        try {
            out.write(b.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (IOException e) {
            System.err.println("kreactor driver: stdout closed (" + e + "); exiting");
            Runtime.getRuntime().halt(3);
        }
    }
}
