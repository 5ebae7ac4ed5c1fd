package dev.funes.store;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A second process for {@link MultiProcessTest}: takes the write lock of the store in
 * {@code args[0]}, prints {@code LOCKED}, holds it until a line arrives on stdin, then releases it
 * and prints {@code RELEASED}.
 */
public final class LockHolderChild {

    private LockHolderChild() {
    }

    /** Runs the child. */
    public static void main(String[] args) throws Exception {
        WriteLock lock = new WriteLock(Path.of(args[0]), Duration.ofSeconds(30));
        try (WriteLock.Held held = lock.acquire("holding the lock for a test")) {
            System.out.println("LOCKED");
            System.out.flush();
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        }
        System.out.println("RELEASED");
        System.out.flush();
    }
}
