package dev.funes.redact;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Base64;
import java.util.Map;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The families of secrets an adversarial probe found surviving (issue 22), each in the forms it
 * is met in: written from each service's documented format, with values made at run time. Each
 * repetition draws new values.
 */
class SecretFamiliesTest {

    private final Redactor redactor = Redactor.standard();
    private Fake fake;

    /** {@code before} + secret + {@code after} becomes before + placeholder + after, counted once. */
    private void caught(String type, String before, String secret, String after) {
        Redaction r = redactor.redact(before + secret + after);
        assertThat(r.text()).as("redacting %s", before + secret + after).isEqualTo(before + Redactor.placeholder(type) + after);
        assertThat(r.counts()).isEqualTo(Map.of(type, 1));
    }

    /** Nothing of {@code secret} as long as 12 characters (or all of a shorter one) is left in the redacted text. */
    private void gone(String text, String secret) {
        String out = redactor.redact(text).text();
        if (secret.length() < 12) {
            assertThat(out).as("redacting %s", text).doesNotContain(secret);
            return;
        }
        for (int i = 0; i + 12 <= secret.length(); i++) {
            assertThat(out).as("redacting %s", text).doesNotContain(secret.substring(i, i + 12));
        }
    }

    private void untouched(String text) {
        Redaction r = redactor.redact(text);
        assertThat(r.text()).as("should not redact anything in: %s", text).isEqualTo(text);
    }

    @RepeatedTest(5)
    void serviceTokensWithAPrefix(RepetitionInfo run) {
        fake = new Fake(20251231L + run.getCurrentRepetition());
        String hf = fake.huggingFaceToken();
        caught("huggingface-token", "export HF_TOKEN=", hf, "\n");
        caught("huggingface-token", "huggingface-cli login --token ", hf, " --add-to-git-credential");
        caught("huggingface-token", "$ cat ~/.cache/huggingface/token\n", hf, "");
        caught("npm-token", "//registry.npmjs.org/:_authToken=", fake.npmToken(), "\n");
        caught("npm-token", "npm token create\n\u2502 token \u2502 ", fake.npmToken(), " \u2502");
        caught("pypi-token", "[pypi]\n  username = __token__\n  password = ", fake.pypiToken(), "\n");
        caught("sendgrid-key", "sg = SendGridAPIClient('", fake.sendgridKey(), "')");
        caught("sendgrid-key", "The key SendGrid gave us is ", fake.sendgridKey(), ".");
        caught("google-oauth", "\"client_secret\":\"", fake.googleOauth(), "\"");
        caught("azure-secret", "AZURE_CLIENT_SECRET=", fake.azureClientSecret(), "\n");
        caught("heroku-key", "export HEROKU_API_KEY=", "HR" + "KU-AA" + fake.of(Fake.BASE64URL, 58), "");
        for (int i = 0; i < 6; i++) {
            String t = fake.prefixedToken();
            gone("curl -H 'Authorization: Bearer " + t + "' https://api.example.dev/v1/me", t);
            gone("Here is my token " + t + " for the staging account", t);
            gone("{\"apiKey\": \"" + t + "\"}", t);
        }
    }

    @RepeatedTest(5)
    void vaultTokensInEveryForm(RepetitionInfo run) {
        fake = new Fake(20260101L + run.getCurrentRepetition());
        String t = fake.vaultToken();
        gone("$ vault login " + t + "\nSuccess! You are now authenticated.", t);
        gone("export VAULT_TOKEN=" + t, t);
        gone("Key                  Value\n---                  -----\ntoken                " + t
                + "\ntoken_accessor       " + fake.of(Fake.BASE62, 24) + "\ntoken_duration       768h", t);
        gone("curl -H \"X-Vault-Token: " + t + "\" https://vault.internal:8200/v1/secret/data/app", t);
        gone("Initial Root Token: " + t, t);
    }

    @RepeatedTest(5)
    void herokuKeysAreUuidsNearTheWordHeroku(RepetitionInfo run) {
        fake = new Fake(20260102L + run.getCurrentRepetition());
        String key = fake.uuid();
        caught("heroku-key", "$ heroku auth:token\n", key, "\n");
        gone("machine api.heroku.com\n  login dev@example.com\n  password " + key + "\nmachine git.heroku.com", key);
        caught("heroku-key", "heroku authorizations:create -d ci\nCreating OAuth Authorization... done\nToken:       ", key, "");
        // A UUID with no mention of Heroku is an identifier.
        untouched("Created session " + key + " for the request");
    }

    @RepeatedTest(5)
    void azureSignaturesAndKeys(RepetitionInfo run) {
        fake = new Fake(20260103L + run.getCurrentRepetition());
        String sig = fake.azureSasSignature();
        String sas = "sv=2022-11-02&ss=b&srt=co&sp=rwdlac&se=2026-01-01T00:00:00Z&st=2025-01-01T00:00:00Z&spr=https&sig=" + sig;
        caught("azure-sas", "az storage blob download --blob-url 'https://acme.blob.core.windows.net/backups/db.bak?", sas, "'");
        caught("azure-sas", "BlobEndpoint=https://acme.blob.core.windows.net/;SharedAccessSignature=", sas, ";");
        gone("curl -o out.bin \"https://acme.blob.core.windows.net/c/b?sp=r&st=2025-01-01&se=2025-02-01&sig=" + sig + "\"", sig);
        String key = fake.azureStorageKey();
        gone("DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=" + key + ";EndpointSuffix=core.windows.net", key);
        String amz = fake.of(Fake.HEX, 64);
        caught("signed-url", "https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=900&X-Amz-Signature=",
                amz, "");
    }

    @RepeatedTest(5)
    void privateKeyLinesSeenAlone(RepetitionInfo run) {
        fake = new Fake(20260104L + run.getCurrentRepetition());
        String line = fake.pemLine();
        caught("private-key", "$ sed -n 5p ~/.ssh/id_rsa\n", line, "\n");
        caught("private-key", "Read(~/.ssh/deploy_key)\n    12\u2192", line, "\n    13\u2192");
        caught("private-key", "-", line, "\n (a line removed from deploy_key.pem)");
        String pem = fake.privateKey("RSA", 600);
        String[] lines = pem.split("\n");
        String middle = String.join("\n", lines[3], lines[4], lines[5]);
        Redaction r = redactor.redact("head -n 6 server.key | tail -n 3\n" + middle + "\n");
        for (int i = 3; i <= 5; i++) {
            assertThat(r.text()).doesNotContain(lines[i].substring(0, 12));
        }
        String id = fake.privateKeyId();
        caught("secret", "{\"type\": \"service_account\", \"project_id\": \"acme\", \"private_key_id\": \"", id, "\",");
    }

    @RepeatedTest(5)
    void tokensGluedToTheWordBefore(RepetitionInfo run) {
        fake = new Fake(20260105L + run.getCurrentRepetition());
        String gh = "gh" + "p_" + fake.of(Fake.BASE62, 36);
        caught("github-token", "mytoken", gh, "");
        caught("github-token", "GITHUB_TOKEN:", gh, "");
        String aws = fake.awsKeyId();
        caught("aws-access-key-id", "keyis", aws, " (old)");
        String stripe = "sk" + "_live_" + fake.of(Fake.BASE62, 32);
        caught("stripe-key", "stripekey", stripe, "");
        String openai = "sk-" + "proj-" + fake.of(Fake.BASE62, 60);
        caught("openai-key", "OPENAIKEY", openai, "");
    }

    @RepeatedTest(5)
    void jwtsCutByShortening(RepetitionInfo run) {
        fake = new Fake(20260106L + run.getCurrentRepetition());
        String jwt = fake.jwt();
        int sig = jwt.lastIndexOf('.');
        // The tail kept after a cut: the end of the payload and the signature.
        String tail = jwt.substring(sig - 6);
        gone("Authorization: Bearer " + jwt.substring(0, 30) + " \u2026 [1840 chars omitted] \u2026 " + tail, tail);
        gone("Authorization: Bearer " + jwt.substring(0, 30) + " \u2026 [1840 chars omitted] \u2026 " + tail, jwt.substring(0, 30));
        // Only the signature (or part of it) kept.
        String end = jwt.substring(jwt.length() - 30);
        gone("token=" + jwt.substring(0, 20) + "\u2026 [900 chars omitted] \u2026 " + end + "\"}", end);
        // A head with nothing after the header's dot.
        String head = jwt.substring(0, jwt.indexOf('.') + 1);
        gone("{\"access_token\":\"" + head + "\u2026", head);
    }

    @RepeatedTest(5)
    void passwordsInUrlsWithCharactersThatMeanSomethingThere(RepetitionInfo run) {
        fake = new Fake(20260107L + run.getCurrentRepetition());
        String pw = fake.urlHostilePassword();
        gone("DATABASE_URL=postgres://app:" + pw + "@db.internal:5432/app", pw);
        gone("mongodb://admin:" + pw + "@mongo-0.mongo:27017/?authSource=admin", pw);
        gone("amqp://guest:" + pw + "@rabbit:5672/vhost", pw);
        caught("url-password", "redis://:", "Rd" + fake.of(Fake.BASE62, 14), "@cache.internal:6379/0");
        caught("url-password", "REDIS_URL=rediss://default:", "Rd" + fake.of(Fake.BASE62, 14), "@cache.internal:6380");
        // A port and path are not a password.
        untouched("open http://localhost:3000/@vite/client and https://registry.npmjs.org:443/@babel/core@7.0.0");
    }

    @RepeatedTest(5)
    void passwordsOnCommandLines(RepetitionInfo run) {
        fake = new Fake(20260108L + run.getCurrentRepetition());
        String pw = fake.password().replace("$", "!");
        caught("password", "redis-cli -h cache.internal -p 6379 -a ", pw, " --no-auth-warning ping");
        caught("password", "redis-cli --user app --pass ", pw, " INFO");
        caught("password", "mysql -u root -p", pw, " -h db.internal app < dump.sql");
        caught("password", "mysqldump -uroot -p'", pw, "' --all-databases > all.sql");
        caught("password", "sshpass -p '", pw, "' ssh deploy@10.0.0.5");
        caught("password", "docker login -u ci -p ", pw, " registry.example.com");
        caught("password", "sqlcmd -S db -U sa -P ", pw, " -Q \"SELECT 1\"");
        caught("password", "ldapsearch -x -D cn=admin,dc=example,dc=org -w ", pw, " -b dc=example,dc=org");
        caught("password", "keytool -importkeystore -srckeystore a.p12 -srcstorepass ", pw, " -destkeystore b.jks");
        caught("password", "openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:", pw, "");
        caught("password", "smbclient //fs/share -U alice%", pw, "");
        caught("password", "echo '", pw, "' | sudo -S systemctl restart nginx");
        caught("password", "echo -n 'admin:", pw, "' | base64");
        caught("password", "htpasswd -bc /etc/nginx/.htpasswd admin ", pw, "");
        // The same flags elsewhere are not passwords.
        untouched("docker run -p 8080:80 nginx && mysql -p -u root && zip -r out.zip src");
    }

    @RepeatedTest(5)
    void encodedPasswords(RepetitionInfo run) {
        fake = new Fake(20260109L + run.getCurrentRepetition());
        String pw = fake.password();
        caught("password", "curl \"https://app.example.com/login?next=%2Fhome%26password%3D", pw.replace("#", "%23"),
                "%26remember%3D1\"");
        caught("password", "redirect_uri=https%3A%2F%2Fapp%2Fcb%3Fdb_password%253D", fake.of(Fake.BASE62, 14), "%2526x%253Dy");
        String basic = Base64.getEncoder().encodeToString(("admin:" + pw).getBytes(UTF_8));
        caught("encoded-secret", "$ echo -n \"$CREDS\" | base64\n", basic, "\n");
        gone("curl -H 'Authorization: Basic " + basic + "' https://jenkins.internal/api/json", basic);
        String env = Base64.getEncoder().encodeToString(("DB_PASSWORD=" + pw + "\nDB_USER=app\n").getBytes(UTF_8));
        caught("encoded-secret", "data:\n  app.env: ", env, "\n");
    }

    @RepeatedTest(5)
    void passwordFilesAndNameValuePairs(RepetitionInfo run) {
        fake = new Fake(20260110L + run.getCurrentRepetition());
        String pw = fake.password().replace(":", "!");
        caught("password", "$ cat ~/.pgpass\ndb.internal:5432:app:app_user:", pw, "\n*:*:*:postgres:" + "x");
        caught("password", "     3\u2192localhost:*:*:admin:", pw, "\n");
        caught("password", "echo \"db.internal:5432:*:app:", pw, "\" >> ~/.pgpass");
        String key = "rk_" + "prod_" + fake.of(Fake.BASE62, 28);
        caught("secret", "        env:\n        - name: STRIPE_KEY\n          value: ", key, "\n        - name: LOG_LEVEL\n");
        caught("password", "        - name: DB_PASSWORD\n          value: \"", pw, "\"\n");
        caught("password", "{\"name\": \"/prod/db/password\", \"type\": \"SecureString\", \"value\": \"", pw, "\"}");
        caught("password", "aws cloudformation deploy --parameter-overrides ParameterKey=DbPassword,ParameterValue=", pw, "");
        // A reference to a Kubernetes secret is not a value.
        untouched("- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db\n      key: password");
    }

    @RepeatedTest(5)
    void secretsTalkedAbout(RepetitionInfo run) {
        fake = new Fake(20260111L + run.getCurrentRepetition());
        String pw = fake.spokenPassword();
        caught("password", "the password is ", pw, ", right?");
        caught("password", "OK so the admin password for staging is `", pw, "`.");
        caught("password", "The user's password appears to be ", pw.replace("!", ""), " judging from the config.");
        caught("password", "I reset the root password to ", pw.replace("!", "9"), " and restarted.");
        caught("password", "use ", pw.replace("$", "7"), " as the password");
        String token = fake.uuid();
        caught("token", "the token for prod is: ", token, "");
        caught("secret", "The API key we use for the nightly export is ", fake.of(Fake.HEX, 40), ".");
        caught("high-entropy", "token (expires Friday): ", fake.of(Fake.BASE62, 32), "");
        caught("token", "the deploy token we got from the vendor for the EU region is ", fake.uuid(), "");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "the password is required", "the password is not set", "the password is stored in the vault",
            "if password is None: raise ValueError", "Password input may be echoed.", "and self.password to be set.",
            "the key is in the map", "key is now either NamedPKCS8Key or NamedX509Key", "the token is valid for 30 days",
            "Original token count: 1234", "token count: 56789 (limit 200000)", "RFC 2965: key must be 'Set-Cookie2'",
            "// used when the password is set/reset.", "the key is k.hashCode()", "primary key is id123456",
            "cat src/main/java/dev/funes/redact/Redactor.java", "Read /Users/dev/.claude/projects/-Users-dev-app/3f2a9c1d.jsonl",
            "ps(\"SecretKeyFactory\", \"PBKDF2WithHmacSHA512/224\")", "}//XML11DTDDVFactoryImpl",
            "see https://github.com/acme/app/blob/3f2a9c1d5e7b8a0c4d6e2f1a9b8c7d6e5f4a3b2c/README.md",
            "/var/folders/8s/7xq2kd9n1b5g0w7z3j4m6p8r0000gn/T/tmpabc/out.txt",
            "/nix/store/0c1s9hvn4g3kf6x8m2p7q5r9w3z1y2ab-python3-3.11.9/bin/python",
            "Loading\u2026 src/components/WorkflowExecutionConfigForm.tsx",
            "2025-10-08T03:31:02.277Z,\"bytes\":1106043,\"code\":200",
            "machine learning models can crack the password hashes",
            "echo \"hello world\" | base64", "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
            "DTD_KEY = JdkConstants.DTD_PROPNAME", "CACHE_KEY = 'user_profile_v2_2024'"})
    void leavesTheirLookalikesAlone(String text) {
        untouched(text);
    }
}
