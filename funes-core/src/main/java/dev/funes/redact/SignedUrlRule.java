package dev.funes.redact;

/**
 * Signatures that grant access by themselves: the {@code sig=} of an Azure shared access
 * signature (SAS) and the {@code Signature=} of signed URLs ({@code X-Amz-Signature},
 * {@code X-Goog-Signature}, CloudFront). A SAS goes whole, from its first parameter to its
 * last ({@code sv=...&se=...&sp=...&sig=...}), since its parameters are what the signature
 * signs; other signed URLs lose the signature only.
 */
final class SignedUrlRule implements Rule {

    /** How far back a SAS may begin before its {@code sig=}. */
    private static final int MAX_QUERY = 4000;
    private static final int MIN_SIGNATURE = 16;

    @Override
    public void find(Input input, Sink sink) {
        String lower = input.lower();
        if (!lower.contains("sig=") && !lower.contains("signature=")) {
            return;
        }
        String text = input.text;
        // Where the query around the current sig= starts and ends, kept from one sig= to the next
        // so that a text of many costs one pass.
        int boundary = 0;
        int scanned = 0;
        int stop = -1;
        int sasParam = -1;
        for (int at = lower.indexOf("sig"); at >= 0; at = lower.indexOf("sig", at + 3)) {
            boolean sas = lower.startsWith("sig=", at);
            boolean signature = !sas && lower.startsWith("signature=", at);
            if (!sas && !signature) {
                continue;
            }
            int nameStart = at;
            if (signature) {
                // X-Amz-Signature, X-Goog-Signature, Signature
                while (nameStart > 0 && at - nameStart < 40
                        && (Character.isLetterOrDigit(text.charAt(nameStart - 1)) || text.charAt(nameStart - 1) == '-')) {
                    nameStart--;
                }
            }
            if (nameStart > 0 && !isParamStart(text.charAt(nameStart - 1))) {
                continue;
            }
            int valueStart = at + (sas ? 4 : 10);
            int end = valueStart;
            while (end < text.length() && isValueChar(text.charAt(end))) {
                end++;
            }
            if (end == valueStart) {
                continue;
            }
            if (signature) {
                if (end - valueStart >= MIN_SIGNATURE) {
                    sink.found(valueStart, end, "signed-url");
                }
                continue;
            }
            for (int i = Math.max(scanned, nameStart - MAX_QUERY); i < nameStart; i++) {
                char c = text.charAt(i);
                if (c == '?' || isBoundary(c) || c == '=' && lower.startsWith("sharedaccesssignature=", i - 21)) {
                    boundary = i + 1;
                    sasParam = -1;
                } else if (c == 's' && (i == boundary || text.charAt(i - 1) == '&') && i + 2 < text.length()
                        && text.charAt(i + 2) == '=' && "vept".indexOf(text.charAt(i + 1)) >= 0) {
                    sasParam = i; // sv=, se=, sp=, st=: a SAS's version, expiry, permissions, start
                }
            }
            scanned = nameStart;
            int start = Math.max(boundary, nameStart - MAX_QUERY);
            if (stop < end) {
                stop = end;
                while (stop < text.length() && !isBoundary(text.charAt(stop)) && text.charAt(stop) != ';'
                        && stop - end < MAX_QUERY) {
                    stop++;
                }
            }
            // In a SAS the whole query goes, however short what is left of the signature (a cut may
            // have taken the rest); a lone sig= needs a signature's length.
            if (sasParam >= start) {
                sink.found(start, stop, "azure-sas");
            } else if (end - valueStart >= MIN_SIGNATURE) {
                sink.found(valueStart, end, "azure-sas");
            }
        }
    }

    private static boolean isParamStart(char c) {
        return c == '?' || c == '&' || c == ';' || c == ' ' || c == '\t' || c == '\n' || c == '"' || c == '\''
                || c == '=' || c == '`';
    }

    private static boolean isBoundary(char c) {
        return Character.isWhitespace(c) || c == '"' || c == '\'' || c == '<' || c == '>' || c == '`' || c == ')'
                || c == '(' || c == ',';
    }

    private static boolean isValueChar(char c) {
        return Character.isLetterOrDigit(c) && c < 128 || c == '%' || c == '+' || c == '/' || c == '=' || c == '_'
                || c == '-' || c == '.' || c == '~';
    }
}
