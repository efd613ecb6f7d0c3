package dev.kreactor.driver;

/**
 * A command the driver cannot run as given: unknown name, a missing or mistyped argument, a
 * call in the wrong state (no consumer yet). Its message names the command, the argument and the
 * bad value. Reported as an error reply with class {@code dev.kreactor.driver.BadCommand}.
 */
final class BadCommand extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BadCommand(String message) {
        super(message);
    }
}
