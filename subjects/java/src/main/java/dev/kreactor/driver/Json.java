package dev.kreactor.driver;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small JSON reader and writer for the driver's line protocol (RFC 8259).
 *
 * <p>Values map to Java as: object = {@code Map<String,Object>} (insertion-ordered), array =
 * {@code List<Object>}, string = {@code String}, integer = {@code Long}, other number =
 * {@code Double}, true/false = {@code Boolean}, null = {@code null}. {@link #parse} rejects
 * malformed input with an {@link IllegalArgumentException} naming the offset; {@link #write}
 * accepts these types plus any other {@link Number}, {@code byte[]} is not accepted (encode it
 * first).
 */
final class Json {
    private Json() {}

    /** Parses one JSON value that must span all of {@code s} (surrounding spaces allowed). */
    static Object parse(String s) {
        Reader r = new Reader(s);
        r.space();
        Object v = r.value(0);
        r.space();
        if (r.i != s.length()) {
            throw r.error("trailing characters after the value");
        }
        return v;
    }

    /** Serialises {@code v} (see the class comment for accepted types) on one line. */
    static String write(Object v) {
        StringBuilder b = new StringBuilder(128);
        write(b, v);
        return b.toString();
    }

    static void write(StringBuilder b, Object v) {
        if (v == null) {
            b.append("null");
        } else if (v instanceof String) {
            string(b, (String) v);
        } else if (v instanceof Boolean) {
            b.append(((Boolean) v).booleanValue() ? "true" : "false");
        } else if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                // JSON has no NaN/Infinity; Kafka metrics use NaN for "no samples".
                string(b, Double.toString(d));
            } else if (d == Math.rint(d) && Math.abs(d) < 1e15) {
                b.append((long) d);
            } else {
                b.append(d);
            }
        } else if (v instanceof Number) {
            b.append(((Number) v).longValue());
        } else if (v instanceof Map) {
            b.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                if (!first) {
                    b.append(',');
                }
                first = false;
                string(b, String.valueOf(e.getKey()));
                b.append(':');
                write(b, e.getValue());
            }
            b.append('}');
        } else if (v instanceof Iterable) {
            b.append('[');
            boolean first = true;
            for (Object o : (Iterable<?>) v) {
                if (!first) {
                    b.append(',');
                }
                first = false;
                write(b, o);
            }
            b.append(']');
        } else {
            throw new IllegalArgumentException("cannot write " + v.getClass().getName() + " as JSON");
        }
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    static void string(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\n': b.append("\\n"); break;
                case '\r': b.append("\\r"); break;
                case '\t': b.append("\\t"); break;
                case '\b': b.append("\\b"); break;
                case '\f': b.append("\\f"); break;
                default:
                    // Control characters and the line separators U+2028/U+2029 are escaped so a
                    // message can never span two protocol lines.
                    if (c < 0x20 || c == 0x2028 || c == 0x2029) {
                        b.append("\\u").append(HEX[(c >> 12) & 15]).append(HEX[(c >> 8) & 15])
                                .append(HEX[(c >> 4) & 15]).append(HEX[c & 15]);
                    } else {
                        b.append(c);
                    }
            }
        }
        b.append('"');
    }

    /** Nesting deeper than this is rejected (the protocol needs 4 levels). */
    private static final int MAX_DEPTH = 64;

    private static final class Reader {
        final String s;
        int i;

        Reader(String s) {
            this.s = s;
        }

        IllegalArgumentException error(String what) {
            return new IllegalArgumentException("invalid JSON at offset " + i + ": " + what);
        }

        void space() {
            while (i < s.length()) {
                char c = s.charAt(i);
                if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                    return;
                }
                i++;
            }
        }

        Object value(int depth) {
            if (depth > MAX_DEPTH) {
                throw error("nested deeper than " + MAX_DEPTH);
            }
            if (i >= s.length()) {
                throw error("unexpected end of input");
            }
            char c = s.charAt(i);
            switch (c) {
                case '{': return object(depth);
                case '[': return array(depth);
                case '"': return string();
                case 't': return literal("true", Boolean.TRUE);
                case 'f': return literal("false", Boolean.FALSE);
                case 'n': return literal("null", null);
                default:
                    if (c == '-' || (c >= '0' && c <= '9')) {
                        return number();
                    }
                    throw error("unexpected character '" + c + "'");
            }
        }

        Object literal(String word, Object v) {
            if (!s.startsWith(word, i)) {
                throw error("expected " + word);
            }
            i += word.length();
            return v;
        }

        Map<String, Object> object(int depth) {
            Map<String, Object> m = new LinkedHashMap<>();
            i++;
            space();
            if (peek() == '}') {
                i++;
                return m;
            }
            while (true) {
                space();
                if (peek() != '"') {
                    throw error("expected a string key");
                }
                String k = string();
                space();
                expect(':');
                space();
                m.put(k, value(depth + 1));
                space();
                char c = next();
                if (c == '}') {
                    return m;
                }
                if (c != ',') {
                    i--;
                    throw error("expected ',' or '}'");
                }
            }
        }

        List<Object> array(int depth) {
            List<Object> l = new ArrayList<>();
            i++;
            space();
            if (peek() == ']') {
                i++;
                return l;
            }
            while (true) {
                space();
                l.add(value(depth + 1));
                space();
                char c = next();
                if (c == ']') {
                    return l;
                }
                if (c != ',') {
                    i--;
                    throw error("expected ',' or ']'");
                }
            }
        }

        String string() {
            expect('"');
            StringBuilder b = null;
            int start = i;
            while (true) {
                if (i >= s.length()) {
                    throw error("unterminated string");
                }
                char c = s.charAt(i);
                if (c == '"') {
                    String out = b == null ? s.substring(start, i) : b.append(s, start, i).toString();
                    i++;
                    return out;
                }
                if (c < 0x20) {
                    throw error("control character in string");
                }
                if (c != '\\') {
                    i++;
                    continue;
                }
                if (b == null) {
                    b = new StringBuilder();
                }
                b.append(s, start, i);
                i++;
                char e = next();
                switch (e) {
                    case '"': b.append('"'); break;
                    case '\\': b.append('\\'); break;
                    case '/': b.append('/'); break;
                    case 'b': b.append('\b'); break;
                    case 'f': b.append('\f'); break;
                    case 'n': b.append('\n'); break;
                    case 'r': b.append('\r'); break;
                    case 't': b.append('\t'); break;
                    case 'u':
                        if (i + 4 > s.length()) {
                            throw error("short \\u escape");
                        }
                        try {
                            b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        } catch (NumberFormatException x) {
                            throw error("bad \\u escape");
                        }
                        i += 4;
                        break;
                    default:
                        throw error("bad escape \\" + e);
                }
                start = i;
            }
        }

        Object number() {
            int start = i;
            if (peek() == '-') {
                i++;
            }
            boolean fraction = false;
            while (i < s.length()) {
                char c = s.charAt(i);
                if (c >= '0' && c <= '9') {
                    i++;
                } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
                    fraction = true;
                    i++;
                } else {
                    break;
                }
            }
            String t = s.substring(start, i);
            try {
                if (!fraction) {
                    return Long.parseLong(t);
                }
                return Double.parseDouble(t);
            } catch (NumberFormatException x) {
                i = start;
                throw error("bad number " + t);
            }
        }

        char peek() {
            if (i >= s.length()) {
                throw error("unexpected end of input");
            }
            return s.charAt(i);
        }

        char next() {
            char c = peek();
            i++;
            return c;
        }

        void expect(char c) {
            if (next() != c) {
                i--;
                throw error("expected '" + c + "'");
            }
        }
    }
}
