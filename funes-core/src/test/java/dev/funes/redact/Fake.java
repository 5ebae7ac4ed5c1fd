package dev.funes.redact;

import java.util.Base64;
import java.util.Random;

/**
 * Secret-shaped strings for tests, made at run time from a seed so that no file of the project
 * holds anything a secret scanner would flag.
 */
public final class Fake {

    public static final String UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    public static final String LOWER = "abcdefghijklmnopqrstuvwxyz";
    public static final String DIGITS = "0123456789";
    public static final String BASE62 = UPPER + LOWER + DIGITS;
    public static final String BASE64URL = BASE62 + "-_";
    public static final String HEX = "0123456789abcdef";

    private final Random random;

    /** Strings drawn from {@code new Random(seed)}. */
    public Fake(long seed) {
        this.random = new Random(seed);
    }

    public String of(String alphabet, int n) {
        StringBuilder s = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            s.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return s.toString();
    }

    public int between(int min, int max) {
        return min + random.nextInt(max - min + 1);
    }

    public <T> T pick(T[] options) {
        return options[random.nextInt(options.length)];
    }

    public boolean chance(double p) {
        return random.nextDouble() < p;
    }

    public byte[] bytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    public String awsKeyId() {
        return pick(new String[] {"AKIA", "ASIA"}) + of(UPPER + "234567", 16);
    }

    public String awsSecret() {
        return of(BASE62 + "+/", 40);
    }

    public String githubToken() {
        return chance(0.2) ? "github" + "_pat_" + of(BASE62, 22) + "_" + of(BASE62, 59)
                : pick(new String[] {"ghp", "gho", "ghu", "ghs", "ghr"}) + "_" + of(BASE62, 36);
    }

    public String gitlabToken() {
        return "gl" + "pat-" + of(BASE62 + "-_", 20);
    }

    public String slackToken() {
        return chance(0.15) ? "xa" + "pp-1-A" + of(UPPER + DIGITS, 10) + "-" + of(DIGITS, 13) + "-" + of(HEX, 64)
                : "xox" + pick(new String[] {"b", "p", "a", "r", "s"}) + "-" + of(DIGITS, 12) + "-" + of(DIGITS, 13)
                + "-" + of(BASE62, 24);
    }

    /** The secret part of a Slack webhook URL (after {@code /services/}). */
    public String slackWebhookPath() {
        return "T" + of(UPPER + DIGITS, 8) + "/B" + of(UPPER + DIGITS, 10) + "/" + of(BASE62, 24);
    }

    public String stripeKey() {
        return pick(new String[] {"sk_live_", "rk_live_", "sk_test_", "rk_test_"}) + of(BASE62, between(24, 99));
    }

    public String openaiKey() {
        return chance(0.6) ? "sk-" + "proj-" + of(BASE64URL, 74) + "T3Blbk" + "FJ" + of(BASE64URL, 74)
                : "sk-" + of(BASE62, 20) + "T3Blbk" + "FJ" + of(BASE62, 20);
    }

    public String anthropicKey() {
        return "sk-" + "ant-api03-" + of(BASE64URL, 93) + "AA";
    }

    public String googleKey() {
        return "AI" + "za" + of(BASE64URL, 35);
    }

    public String jwt() {
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        String header = pick(new String[] {"{\"alg\":\"HS256\",\"typ\":\"JWT\"}", "{\"alg\":\"RS256\",\"kid\":\"" + of(HEX, 16) + "\"}"});
        String payload = "{\"sub\":\"" + between(1000, 999999) + "\",\"name\":\"" + pick(new String[] {"Ada", "Linus", "Grace"})
                + "\",\"iat\":" + (1700000000 + between(0, 9999999)) + ",\"scope\":\"" + pick(new String[] {"read", "read write", "admin"}) + "\"}";
        return b64.encodeToString(header.getBytes()) + "." + b64.encodeToString(payload.getBytes()) + "."
                + b64.encodeToString(bytes(header.contains("RS256") ? 256 : 32));
    }

    /** A PEM private key of {@code bodyBytes} random bytes, lines of 64 (70 for OpenSSH) characters. */
    public String privateKey(String label, int bodyBytes) {
        int width = label.equals("OPENSSH") ? 70 : 64;
        String body = Base64.getEncoder().encodeToString(bytes(bodyBytes));
        StringBuilder s = new StringBuilder("-----BEGIN " + (label.isEmpty() ? "" : label + " ") + "PRIVATE KEY-----\n");
        for (int i = 0; i < body.length(); i += width) {
            s.append(body, i, Math.min(body.length(), i + width)).append('\n');
        }
        return s.append("-----END ").append(label.isEmpty() ? "" : label + " ").append("PRIVATE KEY-----").toString();
    }

    /** A password a person or a password manager would pick: no quotes, spaces, or URL delimiters. */
    public String password() {
        switch (random.nextInt(4)) {
            case 0:
                return pick(new String[] {"Summer", "Winter", "Dragon", "Monkey", "Sunshine", "Postgres", "Admin"})
                        + between(1990, 2030) + pick(new String[] {"!", "#", "$", "%", "*", ""});
            case 1:
                return of(BASE62, 1) + of(BASE62 + "!#%^*-_+=.~", between(11, 23));
            case 2:
                return pick(new String[] {"correct", "purple", "rapid", "silent"}) + "-"
                        + pick(new String[] {"horse", "falcon", "river", "lamp"}) + "-" + between(10, 99);
            default:
                return of(LOWER, 4) + of(DIGITS, 4) + of(UPPER, 2);
        }
    }

    /** A password as it may stand in a URL: no characters that would need percent-encoding. */
    public String urlPassword() {
        return chance(0.5) ? password().replace("#", "!").replace("$", "!").replace("%", "!")
                : of(BASE62, 1) + of(BASE62 + "-_.~!*", between(11, 23));
    }

    /** An opaque token with no known prefix, as many services issue. */
    public String opaqueToken() {
        switch (random.nextInt(3)) {
            case 0:
                return of(BASE62, between(24, 48));
            case 1:
                return "hvs." + of(BASE64URL, 90);
            default:
                return of(HEX, 40);
        }
    }

    /** A generated key with no known prefix (Django secret key, API keys of small services). */
    public String genericSecret() {
        return chance(0.5) ? of(BASE62, between(32, 64)) : of(LOWER + DIGITS, 1) + of(LOWER + DIGITS + "!@#%^*-_=+", 49);
    }

    /** A random key as a person would paste it in prose. */
    public String randomKey() {
        return of(BASE62, between(32, 48));
    }
}
