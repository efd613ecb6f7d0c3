package dev.kreactor.driver;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Exceptions as protocol values: {"class", "message", "causes": [{"class", "message"}...]}. */
final class Errors {
    private Errors() {}

    /** How many causes below the top exception are reported. */
    private static final int MAX_CAUSES = 8;

    static Map<String, Object> describe(Throwable t) {
        Map<String, Object> m = one(t);
        List<Object> causes = new ArrayList<>();
        Throwable c = t.getCause();
        while (c != null && c != t && causes.size() < MAX_CAUSES) {
            causes.add(one(c));
            c = c.getCause();
        }
        if (!causes.isEmpty()) {
            m.put("causes", causes);
        }
        return m;
    }

    private static Map<String, Object> one(Throwable t) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("class", t.getClass().getName());
        m.put("message", t.getMessage());
        return m;
    }
}
