package dev.kreactor.driver;

/**
 * A command the running kafka-clients release cannot do (a method or enum constant added in a
 * later release, e.g. {@code AcknowledgeType.RENEW}). Its message names what is missing and the
 * running release. Reported as an error reply with class {@code dev.kreactor.driver.Unsupported}.
 */
final class Unsupported extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Unsupported(String what, Throwable cause) {
        super(what + " is not supported by kafka-clients " + Main.clientsVersion()
                + (cause == null ? "" : " (" + cause + ")"), cause);
    }
}
