package dev.kreactor.driver;

/**
 * Times the consumer call inside one command: {@link #time} measures the wrapped call only
 * (not argument parsing or encoding the reply), also when it throws. The duration goes into the
 * reply as {@code durNs}.
 */
final class Call {
    final Command cmd;
    /** Nanoseconds the consumer call took; -1 when the command made none. */
    long durNs = -1;

    Call(Command cmd) {
        this.cmd = cmd;
    }

    interface Body<T> {
        T run();
    }

    <T> T time(Body<T> body) {
        long t0 = System.nanoTime();
        try {
            return body.run();
        } finally {
            durNs = System.nanoTime() - t0;
        }
    }

    void time(Runnable body) {
        long t0 = System.nanoTime();
        try {
            body.run();
        } finally {
            durNs = System.nanoTime() - t0;
        }
    }
}
