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

    /** An opaque token with no known prefix, as many services issue (random, a UUID, or hex). */
    public String opaqueToken() {
        switch (random.nextInt(3)) {
            case 0:
                return of(BASE62, between(24, 48));
            case 1:
                return uuid();
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

    // ---- families with a documented shape, as each service describes its tokens ------------------

    public String uuid() {
        return of(HEX, 8) + "-" + of(HEX, 4) + "-4" + of(HEX, 3) + "-" + pick(new String[] {"8", "9", "a", "b"}) + of(HEX, 3)
                + "-" + of(HEX, 12);
    }

    /** Hugging Face user access token: hf_ and 34 letters. */
    public String huggingFaceToken() {
        return "h" + "f_" + of(UPPER + LOWER, 34);
    }

    /** npm granular or automation token: npm_ and 36 base62. */
    public String npmToken() {
        return "np" + "m_" + of(BASE62, 36);
    }

    /** PyPI API token: pypi- and a macaroon whose base64 starts with the pypi.org header. */
    public String pypiToken() {
        return "py" + "pi-AgEIcHlwaS5vcmc" + of(BASE64URL, between(70, 150));
    }

    /** SendGrid API key: SG.{22}.{43}. */
    public String sendgridKey() {
        return "S" + "G." + of(BASE64URL, 22) + "." + of(BASE64URL, 43);
    }

    /** HashiCorp Vault token: service (hvs.), batch (hvb.), or the legacy s. of 24 characters. */
    public String vaultToken() {
        switch (random.nextInt(4)) {
            case 0:
                return "hv" + "s.CAESI" + of(BASE64URL, between(80, 110));
            case 1:
                return "hv" + "b.AAAAAQ" + of(BASE64URL, between(90, 130));
            case 2:
                return "hv" + "s." + of(BASE62, 24);
            default:
                return "s." + of(BASE62, 24);
        }
    }

    /** Heroku API key: a UUID (or the newer HRKU- form). */
    public String herokuKey() {
        return chance(0.8) ? uuid() : "HR" + "KU-AA" + of(BASE64URL, 58);
    }

    /** The signature of an Azure SAS: base64 of an HMAC-SHA256, URL-encoded. */
    public String azureSasSignature() {
        return Base64.getEncoder().encodeToString(bytes(32)).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D");
    }

    /** An Azure storage account key: base64 of 64 bytes. */
    public String azureStorageKey() {
        return Base64.getEncoder().encodeToString(bytes(64));
    }

    /** An Entra ID (Azure AD) client secret: three characters, a digit, Q~ and 34 more. */
    public String azureClientSecret() {
        String alphabet = BASE62 + "_~.-";
        return of(BASE62, 3) + of(DIGITS, 1) + "Q~" + of(alphabet, 34);
    }

    /** One line of a PEM private key's body: 64 base64 characters. */
    public String pemLine() {
        return Base64.getEncoder().encodeToString(bytes(48));
    }

    /** A Google service account's private_key_id: 40 hex digits. */
    public String privateKeyId() {
        return of(HEX, 40);
    }

    /** Google OAuth secrets: a client secret, an access token, a refresh token. */
    public String googleOauth() {
        switch (random.nextInt(3)) {
            case 0:
                return "GOC" + "SPX-" + of(BASE64URL, 28);
            case 1:
                return "ya" + "29." + of(BASE64URL, between(120, 180));
            default:
                return "1/" + "/0" + of(BASE64URL, between(60, 100));
        }
    }

    /** Tokens of other services that publish their prefix. */
    public String prefixedToken() {
        switch (random.nextInt(12)) {
            case 0:
                return "do" + "p_v1_" + of(HEX, 64);
            case 1:
                return "shp" + "at_" + of(HEX, 32);
            case 2:
                return "da" + "pi" + of(HEX, 32);
            case 3:
                return "dp" + ".pt." + of(BASE62, 43);
            case 4:
                return "lin" + "_api_" + of(BASE62, 40);
            case 5:
                return "PM" + "AK-" + of(HEX, 24) + "-" + of(HEX, 34);
            case 6:
                return "gs" + "k_" + of(BASE62, 52);
            case 7:
                return "r" + "8_" + of(BASE62, 37);
            case 8:
                return "dckr" + "_pat_" + of(BASE64URL, 27);
            case 9:
                return of(DIGITS.substring(1), 1) + of(DIGITS, 9) + ":A" + "A" + of(BASE64URL, 33);
            case 10:
                return "sk-" + "or-v1-" + of(HEX, 64);
            default:
                return "AT" + "ATT3xFfGF0" + of(BASE64URL, 170) + "=" + of(HEX.toUpperCase(), 8);
        }
    }

    /** A password with characters URLs give a meaning to (# / ? @) that a person typed in one anyway. */
    public String urlHostilePassword() {
        String specials = "#/?@!";
        StringBuilder s = new StringBuilder(of(BASE62, between(3, 6)));
        for (int i = 0; i < between(2, 4); i++) {
            s.append(specials.charAt(random.nextInt(specials.length()))).append(of(BASE62, between(2, 5)));
        }
        return s.toString();
    }

    /** A password of the kind people type in prose: letters, digits and maybe a symbol, 10 to 16 characters. */
    public String spokenPassword() {
        return pick(new String[] {"hunter", "dragon", "sunshine", "falcon", "orange", "maple"}) + of(DIGITS, between(2, 4))
                + of(LOWER, between(2, 4)) + pick(new String[] {"", "!", "#", "$"});
    }
}
