package dev.funes.ingest;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads back the pieces of an EXCHANGE memory's text as {@link Chunker} wrote them: who said
 * what, and which lines are tool calls. The text is the only record of this (an exchange's
 * metadata does not say who spoke), so the prefixes Chunker writes are the contract:
 * {@code User: }, {@code User (continued): }, {@code User command: }, {@code Task from the parent agent: },
 * {@code Request (continued): }, {@code Assistant: }, {@code Thinking: }, {@code [Tool] input},
 * {@code Result of [Tool] ...}, {@code Tool result → }. Any other line continues the entry above it.
 */
final class ExchangeEntries {

    /** Who wrote an entry. */
    enum Speaker {
        /** Typed by the person. */
        USER,
        /** A slash command or shell escape the person ran: not a statement. */
        USER_COMMAND,
        /** A sub-agent's task, written by its parent agent. */
        PARENT_AGENT,
        /** The repeated request at the top of a later part: already classified in the first part. */
        CONTEXT,
        /** The agent's answer text. */
        ASSISTANT,
        /** The agent's reasoning. */
        THINKING,
        /** A tool call, with its result when it was joined to it. */
        CALL,
        /** A tool result that stands alone. */
        RESULT
    }

    /**
     * One piece of an exchange.
     *
     * @param speaker who wrote it
     * @param body    its text without the prefix; for a call, {@code [Tool] input → result}
     * @param tool    the tool's name for {@link Speaker#CALL}, else null
     */
    record Entry(Speaker speaker, String body, String tool) {

        /** The call's key input (command, path, URL), without its result; for calls only. */
        String callInput() {
            int close = body.indexOf("] ");
            if (close < 0) {
                return "";
            }
            String rest = body.substring(close + 2);
            int arrow = rest.indexOf(" \u2192 ");
            return (arrow < 0 ? rest : rest.substring(0, arrow)).strip();
        }
    }

    private static final Pattern CALL = Pattern.compile("^\\[([A-Za-z][\\w.:\\-]*)\\](?: |$)");
    private static final String[][] PREFIXES = {
            {"User command: ", "USER_COMMAND"},
            {"User: ", "USER"},
            {"User (continued): ", "USER"},
            {"Task from the parent agent: ", "PARENT_AGENT"},
            {"Request (continued): ", "CONTEXT"},
            {"Assistant: ", "ASSISTANT"},
            {"Thinking: ", "THINKING"},
            {"Result of [", "RESULT"},
            {"Tool result \u2192 ", "RESULT"},
    };

    private ExchangeEntries() {
    }

    /** The entries of an exchange's text, in order. */
    static List<Entry> parse(String text) {
        List<Entry> entries = new ArrayList<>();
        Speaker speaker = null;
        String tool = null;
        StringBuilder body = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            Speaker next = null;
            String rest = null;
            String nextTool = null;
            for (String[] p : PREFIXES) {
                if (line.startsWith(p[0])) {
                    next = Speaker.valueOf(p[1]);
                    rest = next == Speaker.RESULT ? line : line.substring(p[0].length());
                    break;
                }
            }
            if (next == null) {
                Matcher call = CALL.matcher(line);
                if (call.find()) {
                    next = Speaker.CALL;
                    rest = line;
                    nextTool = call.group(1);
                }
            }
            if (next == null) {
                if (speaker != null) {
                    body.append('\n').append(line);
                }
                continue;
            }
            if (speaker != null) {
                entries.add(new Entry(speaker, body.toString().strip(), tool));
            }
            speaker = next;
            tool = nextTool;
            body.setLength(0);
            body.append(rest);
        }
        if (speaker != null) {
            entries.add(new Entry(speaker, body.toString().strip(), tool));
        }
        return entries;
    }
}
