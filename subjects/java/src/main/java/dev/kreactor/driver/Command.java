package dev.kreactor.driver;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * One command line: {@code {"id": N, "cmd": "name", ...arguments}}. The getters check each
 * argument's presence and type and throw {@link BadCommand} naming the command, the argument and
 * the value otherwise.
 */
final class Command {
    final long id;
    final String name;
    private final Map<String, Object> args;

    private Command(long id, String name, Map<String, Object> args) {
        this.id = id;
        this.name = name;
        this.args = args;
    }

    /**
     * Parses one line. A line that is not a JSON object with a positive integer {@code id} and a
     * string {@code cmd} throws {@link BadCommand}; the id is -1 when it could not be read.
     */
    static Command parse(String line) {
        Object v;
        try {
            v = Json.parse(line);
        } catch (IllegalArgumentException e) {
            throw new BadCommand("line is not JSON: " + e.getMessage());
        }
        if (!(v instanceof Map)) {
            throw new BadCommand("line is not a JSON object: " + abbreviate(line));
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) v;
        Object id = m.get("id");
        if (!(id instanceof Long) || (Long) id <= 0) {
            throw new BadCommand("\"id\" must be a positive integer, got " + Json.write(id));
        }
        Object name = m.get("cmd");
        if (!(name instanceof String)) {
            throw new BadCommand("\"cmd\" must be a string, got " + Json.write(name));
        }
        return new Command((Long) id, (String) name, m);
    }

    /** The "exit" the reader queues when stdin ends (id 0: no reply is written). */
    static Command endOfInput() {
        return new Command(0, "exit", Map.of());
    }

    static String abbreviate(String s) {
        return s.length() <= 200 ? s : s.substring(0, 200) + "...";
    }

    boolean has(String key) {
        return args.get(key) != null;
    }

    private BadCommand bad(String key, String want) {
        return new BadCommand(name + ": argument \"" + key + "\" must be " + want + ", got "
                + Command.abbreviate(Json.write(args.get(key))));
    }

    String string(String key) {
        Object v = args.get(key);
        if (!(v instanceof String)) {
            throw bad(key, "a string");
        }
        return (String) v;
    }

    long longValue(String key) {
        Object v = args.get(key);
        if (!(v instanceof Long)) {
            throw bad(key, "an integer");
        }
        return (Long) v;
    }

    long longValue(String key, long dflt) {
        return has(key) ? longValue(key) : dflt;
    }

    /** A non-negative duration argument in milliseconds. */
    long millis(String key) {
        long v = longValue(key);
        if (v < 0) {
            throw bad(key, "a duration in ms >= 0");
        }
        return v;
    }

    int intValue(String key) {
        long v = longValue(key);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw bad(key, "a 32-bit integer");
        }
        return (int) v;
    }

    boolean bool(String key, boolean dflt) {
        Object v = args.get(key);
        if (v == null) {
            return dflt;
        }
        if (!(v instanceof Boolean)) {
            throw bad(key, "true or false");
        }
        return (Boolean) v;
    }

    List<String> strings(String key) {
        Object v = args.get(key);
        if (!(v instanceof List)) {
            throw bad(key, "an array of strings");
        }
        List<String> out = new ArrayList<>();
        for (Object o : (List<?>) v) {
            if (!(o instanceof String)) {
                throw bad(key, "an array of strings");
            }
            out.add((String) o);
        }
        return out;
    }

    /** A string-to-string object (consumer properties). */
    Map<String, String> stringMap(String key) {
        Object v = args.get(key);
        if (!(v instanceof Map)) {
            throw bad(key, "an object of string values");
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
            if (!(e.getValue() instanceof String)) {
                throw new BadCommand(name + ": " + key + "[\"" + e.getKey() + "\"] must be a string, got "
                        + Json.write(e.getValue()));
            }
            out.put((String) e.getKey(), (String) e.getValue());
        }
        return out;
    }

    /** A list of objects. */
    List<Map<String, Object>> objects(String key) {
        Object v = args.get(key);
        if (!(v instanceof List)) {
            throw bad(key, "an array of objects");
        }
        List<Map<String, Object>> out = new ArrayList<>();
        for (Object o : (List<?>) v) {
            if (!(o instanceof Map)) {
                throw bad(key, "an array of objects");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> m = (Map<String, Object>) o;
            out.add(m);
        }
        return out;
    }

    /** The argument "partitions": [{"t": topic, "p": partition}, ...]. */
    List<TopicPartition> partitions(String key) {
        List<TopicPartition> out = new ArrayList<>();
        for (Map<String, Object> m : objects(key)) {
            out.add(partitionOf(m, key));
        }
        return out;
    }

    TopicPartition partitionOf(Map<String, Object> m, String key) {
        Object t = m.get("t");
        Object p = m.get("p");
        if (!(t instanceof String) || ((String) t).isEmpty() || !(p instanceof Long) || (Long) p < 0
                || (Long) p > Integer.MAX_VALUE) {
            throw new BadCommand(name + ": " + key + " entry must be {\"t\": non-empty topic, \"p\": partition >= 0}, got "
                    + Json.write(m));
        }
        return new TopicPartition((String) t, (int) (long) (Long) p);
    }

    /** This command's own {"t": topic, "p": partition} arguments. */
    TopicPartition partition() {
        return partitionOf(args, "t/p");
    }
}
