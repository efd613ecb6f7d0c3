package dev.kreactor.driver;

import java.util.Map;

/**
 * One command's handler: runs on the application thread, times its consumer call through
 * {@link Call#time}, and returns the reply's fields (null for none). An exception becomes an
 * error reply.
 */
interface Handler {
    Map<String, Object> run(Call call);
}
