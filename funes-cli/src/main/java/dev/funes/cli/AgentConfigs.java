package dev.funes.cli;

import dev.funes.FunesException;
import dev.funes.cli.JsonText.Arr;
import dev.funes.cli.JsonText.Member;
import dev.funes.cli.JsonText.Obj;
import dev.funes.cli.JsonText.Scalar;
import dev.funes.cli.JsonText.Value;
import dev.funes.cli.TomlText.Kind;
import dev.funes.cli.TomlText.Statement;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The edits {@code funes setup} makes to the agents' own config files, as text to text: each
 * adds or removes exactly one entry and leaves every other byte as it was. A {@code null} text
 * is a file that does not exist. Every function checks the whole file first and throws,
 * naming the file and line, when it cannot read it.
 */
final class AgentConfigs {

    /** The name Funes is registered under. */
    static final String SERVER = "funes";

    private AgentConfigs() {
    }

    // ---- JSON: "mcpServers": {"funes": {...}} at the top (Claude Code's ~/.claude.json, Gemini CLI's settings.json) ----

    /** The text with {@code mcpServers.funes} set to {@code entry}; the same text when it is already. */
    static String putServer(String text, Path file, Map<String, Object> entry) {
        if (text == null || text.isBlank()) {
            return JsonText.render(Map.of("mcpServers", Map.of(SERVER, entry)), "", "  ") + "\n";
        }
        Obj root = root(text, file);
        String unit = JsonText.unit(text, root);
        Member servers = root.member("mcpServers");
        if (servers == null) {
            return JsonText.addMember(text, root, "mcpServers", Map.of(SERVER, entry), unit);
        }
        Obj obj = object(servers, text, file);
        Member funes = obj.member(SERVER);
        if (funes == null) {
            return JsonText.addMember(text, obj, SERVER, entry, unit);
        }
        return funes.value().plain().equals(entry) ? text : JsonText.replaceValue(text, funes, entry, unit);
    }

    /** Whether the text registers {@code mcpServers.funes}. */
    static boolean hasServer(String text, Path file) {
        if (text == null || text.isBlank()) {
            return false;
        }
        Member servers = root(text, file).member("mcpServers");
        return servers != null && servers.value() instanceof Obj obj && obj.member(SERVER) != null;
    }

    /** The text without {@code mcpServers.funes}, and without {@code mcpServers} when that held only it. */
    static String removeServer(String text, Path file) {
        if (!hasServer(text, file)) {
            return text;
        }
        Obj root = root(text, file);
        Obj servers = (Obj) root.member("mcpServers").value();
        String removed = removeMember(text, servers, SERVER);
        if (servers.members.size() > 1) {
            return removed;
        }
        return removeMember(removed, root(removed, file), "mcpServers");
    }

    // ---- JSON: Claude Code's hooks in ~/.claude/settings.json ----

    /**
     * The text with a command hook for {@code event} running {@code command}; a hook of ours
     * ({@code ours}) with another command gets this command instead.
     */
    static String putHook(String text, Path file, String event, String command, Predicate<String> ours) {
        Map<String, Object> group = hookGroup(command);
        if (text == null || text.isBlank()) {
            return JsonText.render(Map.of("hooks", Map.of(event, List.of(group))), "", "  ") + "\n";
        }
        Obj root = root(text, file);
        String unit = JsonText.unit(text, root);
        Member hooks = root.member("hooks");
        if (hooks == null) {
            return JsonText.addMember(text, root, "hooks", Map.of(event, List.of(group)), unit);
        }
        Obj events = object(hooks, text, file);
        Member groups = events.member(event);
        if (groups == null) {
            return JsonText.addMember(text, events, event, List.of(group), unit);
        }
        Arr list = array(groups, text, file);
        Scalar existing = findHook(list, ours);
        if (existing == null) {
            return JsonText.addElement(text, list, group, unit);
        }
        return command.equals(existing.value) ? text
                : JsonText.splice(text, existing.start, existing.end, JsonText.quote(command));
    }

    /** Whether the text holds a hook of ours for {@code event}. */
    static boolean hasHook(String text, Path file, String event, Predicate<String> ours) {
        return locateHook(text, file, event, ours) != null;
    }

    /**
     * The text without our hook for {@code event}: its group goes when it held only that hook,
     * then the event when it held only that group, then {@code hooks} when it held only that event.
     */
    static String removeHook(String text, Path file, String event, Predicate<String> ours) {
        int[] at = locateHook(text, file, event, ours);
        if (at == null) {
            return text;
        }
        Obj root = root(text, file);
        Obj events = (Obj) root.member("hooks").value();
        Arr groups = (Arr) events.member(event).value();
        Arr inGroup = (Arr) ((Obj) groups.elements.get(at[0])).member("hooks").value();
        if (inGroup.elements.size() > 1) {
            return JsonText.remove(text, inGroup, JsonText.spans(inGroup), at[1], '[', ']');
        }
        String removed = JsonText.remove(text, groups, JsonText.spans(groups), at[0], '[', ']');
        if (groups.elements.size() > 1) {
            return removed;
        }
        Obj root2 = root(removed, file);
        Obj events2 = (Obj) root2.member("hooks").value();
        String noEvent = removeMember(removed, events2, event);
        if (events2.members.size() > 1) {
            return noEvent;
        }
        return removeMember(noEvent, root(noEvent, file), "hooks");
    }

    private static Map<String, Object> hookGroup(String command) {
        Map<String, Object> hook = new LinkedHashMap<>();
        hook.put("type", "command");
        hook.put("command", command);
        return Map.of("hooks", List.of(hook));
    }

    /** {group index, hook index} of our hook for {@code event}, or {@code null}. */
    private static int[] locateHook(String text, Path file, String event, Predicate<String> ours) {
        if (text == null || text.isBlank()) {
            return null;
        }
        Member hooks = root(text, file).member("hooks");
        if (hooks == null || !(hooks.value() instanceof Obj events) || events.member(event) == null
                || !(events.member(event).value() instanceof Arr groups)) {
            return null;
        }
        for (int g = 0; g < groups.elements.size(); g++) {
            if (groups.elements.get(g) instanceof Obj group && group.member("hooks") != null
                    && group.member("hooks").value() instanceof Arr list) {
                for (int h = 0; h < list.elements.size(); h++) {
                    if (commandOf(list.elements.get(h), ours) != null) {
                        return new int[] {g, h};
                    }
                }
            }
        }
        return null;
    }

    private static Scalar findHook(Arr groups, Predicate<String> ours) {
        for (Value g : groups.elements) {
            if (g instanceof Obj group && group.member("hooks") != null && group.member("hooks").value() instanceof Arr list) {
                for (Value h : list.elements) {
                    Scalar command = commandOf(h, ours);
                    if (command != null) {
                        return command;
                    }
                }
            }
        }
        return null;
    }

    private static Scalar commandOf(Value hook, Predicate<String> ours) {
        if (hook instanceof Obj obj && obj.member("command") != null && obj.member("command").value() instanceof Scalar s
                && s.value instanceof String command && ours.test(command)) {
            return s;
        }
        return null;
    }

    private static Obj root(String text, Path file) {
        Value root = JsonText.parse(text, file);
        if (!(root instanceof Obj obj)) {
            throw new FunesException(file + ":" + JsonText.line(text, root.start)
                    + ": the top level is not a JSON object (nothing was changed)");
        }
        return obj;
    }

    private static Obj object(Member member, String text, Path file) {
        if (!(member.value() instanceof Obj obj)) {
            throw new FunesException(file + ":" + JsonText.line(text, member.nameStart()) + ": \"" + member.name()
                    + "\" is not a JSON object (nothing was changed)");
        }
        return obj;
    }

    private static Arr array(Member member, String text, Path file) {
        if (!(member.value() instanceof Arr arr)) {
            throw new FunesException(file + ":" + JsonText.line(text, member.nameStart()) + ": \"" + member.name()
                    + "\" is not a JSON array (nothing was changed)");
        }
        return arr;
    }

    private static String removeMember(String text, Obj obj, String name) {
        for (int i = 0; i < obj.members.size(); i++) {
            if (obj.members.get(i).name().equals(name)) {
                return JsonText.remove(text, obj, JsonText.spans(obj), i, '{', '}');
            }
        }
        return text;
    }

    // ---- TOML: Codex's [mcp_servers.funes] in ~/.codex/config.toml ----

    private static final List<String> CODEX_TABLE = List.of("mcp_servers", SERVER);

    /**
     * The text with a {@code [mcp_servers.funes]} table running {@code command args}: appended
     * after a blank line when absent; when present, its {@code command} and {@code args} lines
     * set (other keys of the table kept).
     */
    static String putCodex(String text, Path file, String command, List<String> args) {
        String commandLine = "command = " + TomlText.quote(command);
        String argsLine = "args = " + TomlText.quote(args);
        String table = "[mcp_servers." + SERVER + "]\n" + commandLine + "\n" + argsLine + "\n";
        if (text == null || text.isEmpty()) {
            return table;
        }
        List<Statement> statements = codexStatements(text, file);
        Statement header = codexHeader(statements, file);
        if (header == null) {
            return text + (text.endsWith("\n") ? "\n" : "\n\n") + table;
        }
        Statement commandAt = null;
        Statement argsAt = null;
        for (Statement s : block(statements, header)) {
            if (s.path().equals(List.of("mcp_servers", SERVER, "command"))) {
                commandAt = s;
            } else if (s.path().equals(List.of("mcp_servers", SERVER, "args"))) {
                argsAt = s;
            }
        }
        // Edits from the end of the text backwards, so earlier offsets stay valid.
        String result = text;
        List<Object[]> edits = new ArrayList<>();
        String missing = "";
        if (commandAt == null) {
            missing += commandLine + "\n";
        } else if (!text.substring(commandAt.valueStart(), commandAt.end()).equals(TomlText.quote(command))) {
            edits.add(new Object[] {commandAt.valueStart(), commandAt.end(), TomlText.quote(command)});
        }
        if (argsAt == null) {
            missing += argsLine + "\n";
        } else if (!text.substring(argsAt.valueStart(), argsAt.end()).equals(TomlText.quote(args))) {
            edits.add(new Object[] {argsAt.valueStart(), argsAt.end(), TomlText.quote(args)});
        }
        if (!missing.isEmpty()) {
            String before = header.lineEnd() == text.length() && !text.endsWith("\n") ? "\n" : "";
            edits.add(new Object[] {header.lineEnd(), header.lineEnd(), before + missing});
        }
        edits.sort((a, b) -> Integer.compare((int) b[0], (int) a[0]));
        for (Object[] e : edits) {
            result = JsonText.splice(result, (int) e[0], (int) e[1], (String) e[2]);
        }
        return result;
    }

    /** Whether the text has a {@code [mcp_servers.funes]} table. */
    static boolean hasCodex(String text, Path file) {
        return text != null && codexHeader(codexStatements(text, file), file) != null;
    }

    /**
     * The text without the {@code [mcp_servers.funes]} table and its sub-tables, and without the
     * blank line {@link #putCodex} put before it.
     */
    static String removeCodex(String text, Path file) {
        if (text == null) {
            return null;
        }
        List<Statement> statements = codexStatements(text, file);
        List<int[]> cuts = new ArrayList<>();
        for (Statement s : statements) {
            if (s.kind() == Kind.TABLE && s.path().size() >= 2 && s.path().subList(0, 2).equals(CODEX_TABLE)) {
                List<Statement> block = block(statements, s);
                int start = text.lastIndexOf('\n', s.start() - 1) + 1;
                int end = block.isEmpty() ? s.lineEnd() : block.get(block.size() - 1).lineEnd();
                if (start >= 2 && text.startsWith("\n\n", start - 2)) {
                    start--;
                } else if (start == 1 && text.charAt(0) == '\n') {
                    start = 0;
                }
                cuts.add(new int[] {start, end});
            }
        }
        String result = text;
        for (int i = cuts.size() - 1; i >= 0; i--) {
            result = JsonText.splice(result, cuts.get(i)[0], cuts.get(i)[1], "");
        }
        return result;
    }

    private static List<Statement> codexStatements(String text, Path file) {
        List<Statement> statements;
        try {
            statements = TomlText.parse(text, file);
        } catch (FunesException e) {
            throw new FunesException(e.getMessage() + " (nothing was changed)", e);
        }
        Statement header = codexHeader(statements, file);
        for (Statement s : statements) {
            List<String> p = s.path();
            if ((s.kind() == Kind.KEY_VALUE && p.equals(List.of("mcp_servers")))
                    || (s.kind() == Kind.ARRAY_TABLE && p.get(0).equals("mcp_servers"))) {
                throw new FunesException(file + ":" + s.line() + ": mcp_servers is written in a form 'funes setup'"
                        + " does not edit; add [mcp_servers.funes] by hand (docs/CLI.md, \"setup\"); nothing was changed");
            }
            boolean funes = p.size() >= 2 && p.subList(0, 2).equals(CODEX_TABLE);
            if (funes && s.kind() == Kind.KEY_VALUE && (header == null || !block(statements, header).contains(s))
                    && !inSubTable(statements, s)) {
                throw new FunesException(file + ":" + s.line() + ": mcp_servers.funes is written as dotted keys or an"
                        + " inline table, which 'funes setup' does not edit; remove it or edit it by hand; nothing was changed");
            }
        }
        return statements;
    }

    private static Statement codexHeader(List<Statement> statements, Path file) {
        Statement found = null;
        for (Statement s : statements) {
            if (s.kind() == Kind.TABLE && s.path().equals(CODEX_TABLE)) {
                if (found != null) {
                    throw new FunesException(file + ":" + s.line() + ": [mcp_servers.funes] appears twice (also line "
                            + found.line() + "); nothing was changed");
                }
                found = s;
            }
        }
        return found;
    }

    /** The assignments under a table header, up to the next header. */
    private static List<Statement> block(List<Statement> statements, Statement header) {
        List<Statement> block = new ArrayList<>();
        for (int i = statements.indexOf(header) + 1; i < statements.size() && statements.get(i).kind() == Kind.KEY_VALUE; i++) {
            block.add(statements.get(i));
        }
        return block;
    }

    /** Whether an assignment sits under a {@code [mcp_servers.funes.SUB]} header. */
    private static boolean inSubTable(List<Statement> statements, Statement s) {
        for (int i = statements.indexOf(s) - 1; i >= 0; i--) {
            Statement h = statements.get(i);
            if (h.kind() != Kind.KEY_VALUE) {
                return h.path().size() > 2 && h.path().subList(0, 2).equals(CODEX_TABLE);
            }
        }
        return false;
    }
}
