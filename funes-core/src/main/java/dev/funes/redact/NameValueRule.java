package dev.funes.redact;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Secrets whose name and value are two fields of one entry: a Kubernetes or ECS environment
 * variable ({@code - name: STRIPE_KEY} then {@code value: ...}), an SSM parameter
 * ({@code "Name": "/prod/db/password", ..., "Value": "..."}), a CloudFormation parameter
 * ({@code ParameterKey=DbPassword,ParameterValue=...}), a Postman or Terraform variable
 * ({@code "key": "api_token", "value": "..."}). The value goes when the name says it holds a
 * secret (as {@link AssignmentRule} judges names) and no other entry's name comes between.
 */
final class NameValueRule implements Rule {

    /** How far after the name its value may stand. */
    private static final int REACH = 300;
    private static final Pattern NAME = Pattern.compile(
            "(?i)(?:name|key|parameterkey|variable)[\"']?[ \\t]*+[:=][ \\t]*+[\"']?(?<name>[A-Za-z0-9_./-]{2,120}+)[\"']?");
    private static final Pattern VALUE = Pattern.compile(
            "(?i)(?<![A-Za-z0-9_])(?:value|parametervalue|secretstring)[\"']?[ \\t]*+[:=][ \\t]*+"
                    + "(?:\"(?<v1>(?:[^\"\\\\\\n]|\\\\.){1,300}+)\"|'(?<v2>[^'\\n]{1,300}+)'|(?<v3>[^\\s\"',}\\]]{1,300}+))");
    private static final Pattern NEXT_NAME = Pattern.compile("(?i)(?<![A-Za-z0-9_])(?:name|key|parameterkey|variable)[\"']?[ \\t]*+[:=]");

    @Override
    public void find(Input input, Sink sink) {
        String lower = input.lower();
        if (!lower.contains("value")) {
            return;
        }
        String text = input.text;
        Matcher name = NAME.matcher(text);
        Matcher value = VALUE.matcher(text);
        Matcher next = NEXT_NAME.matcher(text);
        for (String word : new String[] {"name", "key", "variable"}) {
            for (int at = lower.indexOf(word); at >= 0; at = lower.indexOf(word, at + word.length())) {
                int start = "key".equals(word) && at >= 9 && lower.startsWith("parameter", at - 9) ? at - 9 : at;
                if (start > 0 && isWordChar(text.charAt(start - 1))) {
                    continue;
                }
                name.region(start, text.length());
                if (!name.lookingAt()) {
                    continue;
                }
                String n = name.group("name");
                String last = n.substring(n.lastIndexOf('/') + 1);
                String type = AssignmentRule.typeOf(last);
                boolean weak = type == null && AssignmentRule.isWeakKey(last);
                if (type == null && !weak) {
                    continue;
                }
                type = weak ? "secret" : type;
                int limit = Math.min(text.length(), name.end() + REACH);
                next.region(name.end(), limit);
                int stop = next.find() ? next.start() : limit;
                value.region(name.end(), stop);
                if (!value.find()) {
                    continue;
                }
                String group = value.group("v1") != null ? "v1" : value.group("v2") != null ? "v2" : "v3";
                String v = value.group(group);
                // A bare value may be code (value = compute(x)); a quoted one is a literal.
                boolean bare = "v3".equals(group);
                if (!(bare && v.contains("(")) && AssignmentRule.isSecretValue(v, type,
                        bare ? AssignmentRule.Form.CONFIG : AssignmentRule.Form.LITERAL)
                        && (!weak || AssignmentRule.isGenerated(v))) {
                    sink.found(value.start(group), value.end(group), type);
                }
            }
        }
    }

    private static boolean isWordChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_';
    }
}
