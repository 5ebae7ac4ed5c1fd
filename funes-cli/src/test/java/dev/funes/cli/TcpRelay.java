package dev.funes.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP relay on a port of its own to a real server: a server that becomes unreachable
 * ({@link #down}: the port refuses connections and those open are cut) and reachable again
 * ({@link #up}: the same port) without stopping it; and a count of the connections a client opened.
 */
final class TcpRelay implements AutoCloseable {

    private final InetSocketAddress target;
    private final int port;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final AtomicInteger accepted = new AtomicInteger();
    private ServerSocket server;

    /** A relay to {@code host:port}, not yet listening: its port is chosen free now. */
    TcpRelay(String host, int port) throws IOException {
        this.target = new InetSocketAddress(host, port);
        try (ServerSocket probe = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            this.port = probe.getLocalPort();
        }
    }

    /** The port clients connect to. */
    int port() {
        return port;
    }

    /** Connections accepted so far. */
    int accepted() {
        return accepted.get();
    }

    /** Listens (again) on {@link #port}. */
    synchronized void up() throws IOException {
        if (server != null) {
            return;
        }
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        server = s;
        Thread acceptor = new Thread(() -> accept(s), "relay-accept-" + port);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Stops listening and cuts every connection: clients get "connection refused" until {@link #up}. */
    synchronized void down() throws IOException {
        if (server != null) {
            server.close();
            server = null;
        }
        for (Socket s : sockets) {
            s.close();
        }
        sockets.clear();
    }

    @Override
    public void close() throws IOException {
        down();
    }

    private void accept(ServerSocket s) {
        while (!s.isClosed()) {
            Socket client;
            try {
                client = s.accept();
            } catch (IOException e) {
                return; // closed by down()
            }
            accepted.incrementAndGet();
            try {
                Socket upstream = new Socket();
                upstream.connect(target);
                sockets.add(client);
                sockets.add(upstream);
                pipe(client, upstream);
                pipe(upstream, client);
            } catch (IOException e) {
                closeQuietly(client);
            }
        }
    }

    /** Copies {@code from} to {@code to} on a thread of its own; the end of one ends both. */
    private void pipe(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                in.transferTo(out);
            } catch (IOException e) {
                // a side closed: the connection ends
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                sockets.remove(from);
                sockets.remove(to);
            }
        }, "relay-pipe-" + port);
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing a socket that is gone
        }
    }
}
