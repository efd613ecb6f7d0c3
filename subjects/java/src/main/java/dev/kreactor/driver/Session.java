package dev.kreactor.driver;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * The one consumer a driver process holds (regular or share), with the handlers of the commands
 * it answers. Created by the "create" command on the application thread; {@link #wakeup} and
 * {@link #metrics} are also called from the reader thread (both are thread-safe in
 * kafka-clients: wakeup by contract, the metrics map is a live concurrent view).
 */
abstract class Session {
    final App app;
    final Map<String, Handler> handlers = new LinkedHashMap<>();
    /**
     * The consumer's wakeup and metrics, set once by the constructor (bind); volatile because the
     * reader thread calls them too.
     */
    private volatile Runnable wakeup;
    private volatile Map<MetricName, ? extends Metric> metrics;

    Session(App app) {
        this.app = app;
    }

    /** "consumer" or "share". */
    abstract String kind();

    /** The kafka-clients class doing the work (e.g. AsyncKafkaConsumer, ClassicKafkaConsumer). */
    abstract String implementation();

    /** Sets the consumer's wakeup and its live metrics view; called once by the constructor. */
    final void bind(Runnable wakeup, Map<MetricName, ? extends Metric> metrics) {
        this.wakeup = wakeup;
        this.metrics = metrics;
    }

    /** The consumer's wakeup (thread-safe by contract). */
    final void wakeup() {
        wakeup.run();
    }

    /** The consumer's metrics: a live view, safe to read from any thread. */
    final Map<MetricName, ? extends Metric> metrics() {
        return metrics;
    }

    /**
     * Registers the commands both consumers answer alike: unsubscribe, subscription, and close
     * {"timeoutMs"?: N} (without a timeout, Java's default).
     */
    void commonHandlers(Runnable unsubscribe, Supplier<Set<String>> subscription, Consumer<Duration> closeWithin, Runnable close) {
        handlers.put("unsubscribe", call -> {
            call.time(unsubscribe);
            return null;
        });
        handlers.put("subscription", call -> Map.of("topics", new ArrayList<>(call.time(subscription::get))));
        handlers.put("close", call -> {
            if (call.cmd.has("timeoutMs")) {
                Duration d = timeout(call);
                call.time(() -> closeWithin.accept(d));
            } else {
                call.time(close);
            }
            return null;
        });
    }

    /** The command's "timeoutMs" as a Duration. */
    static Duration timeout(Call call) {
        return Duration.ofMillis(call.cmd.millis("timeoutMs"));
    }

    /**
     * poll {"timeoutMs": N}: the records Java returned (none when the timeout passed), handed to
     * returned first; a share consumer's carry their delivery count "dc".
     */
    static Map<String, Object> pollReply(Call call, Function<Duration, ConsumerRecords<byte[], byte[]>> poll, boolean share,
            Consumer<ConsumerRecords<byte[], byte[]>> returned) {
        Duration d = timeout(call);
        ConsumerRecords<byte[], byte[]> recs = call.time(() -> poll.apply(d));
        returned.accept(recs);
        List<Object> out = new ArrayList<>(recs.count());
        for (ConsumerRecord<byte[], byte[]> r : recs) {
            out.add(Wire.record(r, share));
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("count", out.size());
        m.put("records", out);
        return m;
    }

    /** Emits an event from a callback running now on the application thread. */
    void callbackEvent(String name, Map<String, Object> body) {
        Map<String, Object> m = new LinkedHashMap<>(body);
        m.putAll(app.during());
        app.out.event(name, m);
    }
}
