package dev.kreactor.driver;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The application thread ("kreactor-app"): runs every consumer call in the order the commands
 * arrived, one at a time, as a Java application does. Only wakeup, metrics, threads and ping
 * run on the reader thread instead (see Main). Callbacks Java runs inside a call (commit,
 * acknowledgement commit, rebalance listener) run here too, and their events say which command
 * was running ({@link #during}).
 */
final class App implements Runnable {
    static final String THREAD_NAME = "kreactor-app";

    final Out out;
    private final BlockingQueue<Command> queue = new LinkedBlockingQueue<>();
    /** Set once by "create" on this thread; read by the reader thread for wakeup and metrics. */
    private volatile Session session;
    /** The command running now; touched only on this thread. */
    private Command current;

    App(Out out) {
        this.out = out;
    }

    void submit(Command c) {
        queue.add(c);
    }

    Session session() {
        return session;
    }

    /** The session, or BadCommand when "create" has not run yet. */
    Session requireSession(String cmd) {
        Session s = session;
        if (s == null) {
            throw new BadCommand(cmd + ": no consumer yet: send \"create\" first");
        }
        return s;
    }

    /** Which command a callback runs in: {"during": name, "duringId": id, "thread": name}. */
    Map<String, Object> during() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("during", current == null ? null : current.name);
        m.put("duringId", current == null ? 0 : current.id);
        m.put("thread", Thread.currentThread().getName());
        return m;
    }

    @Override
    public void run() {
        while (true) {
            Command c;
            try {
                c = queue.take();
            } catch (InterruptedException e) {
                return;
            }
            handle(c);
        }
    }

    private void handle(Command c) {
        current = c;
        Call call = new Call(c);
        try {
            Map<String, Object> reply = dispatch(call);
            if (c.id > 0) {
                out.ok(c.id, reply, call.durNs);
            }
        } catch (LinkageError e) {
            // A method, field or class of the 4.4.0 API the running release lacks.
            out.error(c.id, new Unsupported(c.name, e), call.durNs);
        } catch (Throwable t) {
            out.error(c.id, t, call.durNs);
        } finally {
            current = null;
        }
        if (c.name.equals("exit")) {
            Runtime.getRuntime().halt(0);
        }
    }

    private Map<String, Object> dispatch(Call call) {
        Command c = call.cmd;
        switch (c.name) {
            case "create":
                return create(call);
            case "exit":
                return null;
            default:
                Session s = requireSession(c.name);
                Handler h = s.handlers.get(c.name);
                if (h == null) {
                    throw new BadCommand("unknown command \"" + c.name + "\" for kind " + s.kind()
                            + " consumer; known: " + s.handlers.keySet()
                            + " and create, exit, wakeup, metrics, threads, ping");
                }
                return h.run(call);
        }
    }

    private Map<String, Object> create(Call call) {
        Command c = call.cmd;
        if (session != null) {
            throw new BadCommand("create: this driver already holds a " + session.kind()
                    + " consumer (one consumer per driver process)");
        }
        String kind = c.string("kind");
        Map<String, String> cfg = c.stringMap("config");
        String clientId = cfg.get("client.id");
        if (clientId == null || clientId.isEmpty()) {
            throw new BadCommand("create: config \"client.id\" is required (broker-side request counts are filtered by it)");
        }
        Properties props = new Properties();
        props.putAll(cfg);
        Session s;
        switch (kind) {
            case "consumer":
                s = call.time(() -> new RegularSession(this, props));
                break;
            case "share":
                s = call.time(() -> new ShareSession(this, props));
                break;
            default:
                throw new BadCommand("create: \"kind\" must be \"consumer\" or \"share\", got \"" + kind + "\"");
        }
        session = s;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("kind", s.kind());
        m.put("clientId", clientId);
        m.put("implementation", s.implementation());
        m.put("clientsVersion", Main.clientsVersion());
        return m;
    }
}
