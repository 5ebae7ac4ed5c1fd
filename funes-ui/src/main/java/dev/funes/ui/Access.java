package dev.funes.ui;

import com.sun.net.httpserver.Headers;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Who may use the page: whoever opened the one-time link {@code funes ui} printed, in the browser
 * that opened it. The link's token is exchanged once for a session cookie (HttpOnly,
 * SameSite=Strict); the token is then spent, so a link copied from a terminal's scroll-back or a
 * process list later opens nothing. Requests must name this server by its loopback address
 * ({@code Host}), which a DNS-rebinding page cannot; state-changing requests must also come from
 * its own pages ({@code Origin}).
 *
 * <p>Thread-safe.
 */
final class Access {

    /** The session cookie's name. */
    static final String COOKIE = "funes_ui";

    private static final SecureRandom RANDOM = new SecureRandom();

    private final AtomicReference<String> token = new AtomicReference<>(randomToken());
    private final Set<String> sessions = ConcurrentHashMap.newKeySet();
    private final int port;

    Access(int port) {
        this.port = port;
    }

    /** The one-time token of the link to print; {@code null} once spent. */
    String token() {
        return token.get();
    }

    /**
     * Spends the token: a new session id when {@code offered} is the unspent token, else
     * {@code null}. Compared in constant time.
     */
    String exchange(String offered) {
        String current = token.get();
        if (offered == null || current == null
                || !MessageDigest.isEqual(current.getBytes(StandardCharsets.UTF_8), offered.getBytes(StandardCharsets.UTF_8))
                || !token.compareAndSet(current, null)) {
            return null;
        }
        String session = randomToken();
        sessions.add(session);
        return session;
    }

    /**
     * A fresh one-time token, replacing one not yet spent: for a caller that holds the server
     * object and wants another browser in (tests, and an embedding application).
     */
    String renewToken() {
        String fresh = randomToken();
        token.set(fresh);
        return fresh;
    }

    /** The {@code Set-Cookie} value that carries a session. */
    static String cookie(String session) {
        return COOKIE + "=" + session + "; Path=/; HttpOnly; SameSite=Strict";
    }

    /** Whether the request carries a session cookie this server issued. */
    boolean hasSession(Headers headers) {
        for (String header : headers.getOrDefault("Cookie", java.util.List.of())) {
            for (String part : header.split(";")) {
                String p = part.strip();
                if (p.startsWith(COOKIE + "=") && sessions.contains(p.substring(COOKIE.length() + 1))) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Whether {@code Host} names this server by a loopback name and its port. A page of another
     * site that rebinds its name to 127.0.0.1 sends its own name here, and is refused.
     */
    boolean hostAllowed(Headers headers) {
        String host = headers.getFirst("Host");
        return host != null && (host.equals("127.0.0.1:" + port) || host.equals("localhost:" + port));
    }

    /**
     * Whether a state-changing request comes from this server's own pages: its {@code Origin} is
     * this server. A request without an {@code Origin} is refused too (browsers send it on every
     * POST; a script or another page that strips it is not one of ours).
     */
    boolean originAllowed(Headers headers) {
        String origin = headers.getFirst("Origin");
        return origin != null && (origin.equals("http://127.0.0.1:" + port) || origin.equals("http://localhost:" + port));
    }

    private static String randomToken() {
        byte[] bytes = new byte[24];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
