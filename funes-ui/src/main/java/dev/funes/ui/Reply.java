package dev.funes.ui;

import java.nio.charset.StandardCharsets;

/**
 * What a request is answered with.
 *
 * @param status      the HTTP status
 * @param contentType the body's media type
 * @param body        the body
 * @param location    where a redirect points, or {@code null}
 * @param cookie      a {@code Set-Cookie} value, or {@code null}
 */
record Reply(int status, String contentType, byte[] body, String location, String cookie) {

    static final String HTML = "text/html; charset=utf-8";

    static Reply html(int status, String page) {
        return new Reply(status, HTML, page.getBytes(StandardCharsets.UTF_8), null, null);
    }

    static Reply redirect(String location, String cookie) {
        return new Reply(303, HTML, new byte[0], location, cookie);
    }
}
