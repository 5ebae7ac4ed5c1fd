package dev.funes.cli;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A second process for {@link BusyStoreTest}: takes the OS lock on {@code write.lock} of the store
 * in {@code args[0]} as a Funes writer does (docs/STORE-FORMAT.md), describes itself in the file,
 * prints {@code LOCKED}, and holds the lock until a line arrives on stdin.
 */
public final class LockHolderMain {

    private LockHolderMain() {
    }

    /** Runs the holder. */
    public static void main(String[] args) throws Exception {
        try (FileChannel channel = FileChannel.open(Path.of(args[0], "write.lock"), StandardOpenOption.CREATE,
                StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            FileLock lock = channel.lock();
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(("pid=" + ProcessHandle.current().pid() + "\ncommand=" + LockHolderMain.class.getName()
                    + "\ndoing=holding the lock for a test\n").getBytes(StandardCharsets.UTF_8)), 0);
            System.out.println("LOCKED");
            System.out.flush();
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            channel.truncate(0);
            lock.release();
        }
        System.out.println("RELEASED");
        System.out.flush();
    }
}
