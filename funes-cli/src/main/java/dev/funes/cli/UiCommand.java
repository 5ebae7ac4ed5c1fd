package dev.funes.cli;

import dev.funes.ui.UiServer;
import java.awt.Desktop;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code funes ui}: serves the local web page over the store (docs/UI.md) until interrupted. Prints
 * the one-time link on stdout; opens it in a browser when the desktop has one.
 */
@Command(name = "ui", description = {
    "Browse, search, explain and prune the store in a local web page, served on 127.0.0.1 until Ctrl-C.",
    "Prints a one-time link (it holds a token; the browser that opens it gets a session cookie)."})
final class UiCommand implements Callable<Integer> {

    @Mixin
    StoreOptions storeOptions;

    @Option(names = "--port", paramLabel = "N", defaultValue = "0", description = "Port on 127.0.0.1 (default: a free one).")
    int port;

    @Option(names = "--allow-forget", description = "Let the page forget memories, sessions and projects (read-only otherwise).")
    boolean allowForget;

    @Option(names = "--no-browser", description = "Do not open a browser; only print the link.")
    boolean noBrowser;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException, InterruptedException {
        if (port < 0 || port > 65535) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--port must be between 0 and 65535, was " + port);
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        OpenStore open = OpenStore.existing(storeOptions.dir());
        UiServer server;
        try {
            server = UiServer.start(open.store(), new UiServer.Options(port, allowForget, Path.of("").toAbsolutePath()));
        } catch (IOException | RuntimeException e) {
            open.close();
            throw e;
        }
        // The model loads on another thread once the first page is out: that page does not need it
        // and would share the processor with it; the first search then finds it ready or nearly so.
        if (open.embedder() instanceof LazyEmbedder lazy) {
            server.afterFirstPage(lazy::preload);
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.close();
                open.close();
            } finally {
                stopped.countDown();
            }
        }, "funes-ui-stop"));
        URI link = server.link();
        out.println(link);
        out.flush();
        err.println("funes ui: serving " + storeOptions.dir() + (allowForget ? " (forget enabled)" : " (read-only)")
                + " on 127.0.0.1:" + server.port() + "; the link opens once; Ctrl-C stops");
        err.flush();
        if (!noBrowser) {
            browse(link, err);
        }
        stopped.await();
        return 0;
    }

    /** Opens the link where the desktop has a browser; says nothing where there is none (a server, a container). */
    private static void browse(URI link, PrintWriter err) {
        try {
            if (Desktop.isDesktopSupported() && Desktop.getDesktop().isSupported(Desktop.Action.BROWSE)) {
                Desktop.getDesktop().browse(link);
            }
        } catch (IOException | RuntimeException | LinkageError e) {
            err.println("funes ui: could not open a browser (" + Main.oneLine(e) + "); open the link above");
        }
    }
}
