package dev.kreactor.driver;

import java.util.LinkedHashMap;
import java.util.Map;
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

    Session(App app) {
        this.app = app;
    }

    /** "consumer" or "share". */
    abstract String kind();

    /** The kafka-clients class doing the work (e.g. AsyncKafkaConsumer, ClassicKafkaConsumer). */
    abstract String implementation();

    abstract void wakeup();

    /** The consumer's metrics: a live view, safe to read from any thread. */
    abstract Map<MetricName, ? extends Metric> metrics();

    /** Emits an event from a callback running now on the application thread. */
    void callbackEvent(String name, Map<String, Object> body) {
        Map<String, Object> m = new LinkedHashMap<>(body);
        m.putAll(app.during());
        app.out.event(name, m);
    }
}
