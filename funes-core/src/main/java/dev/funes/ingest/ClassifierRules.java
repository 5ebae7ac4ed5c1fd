package dev.funes.ingest;

import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The cue patterns of {@link Classifier}: which sentence states a decision or a convention, and
 * which tool call is a documentation lookup. Each rule has a stable name, stored with the memory
 * it fired for ({@code rule} metadata), so a wrong classification can be traced to its rule.
 * Patterns run on {@link Sentences.Sentence#masked() masked}, lower-cased sentences. docs/WHY.md
 * lists them.
 */
final class ClassifierRules {

    /** A named pattern. */
    record Rule(String name, Pattern pattern) {
        boolean matches(String masked) {
            return pattern.matcher(masked).find();
        }
    }

    private static Rule rule(String name, String regex) {
        return new Rule(name, Pattern.compile(regex));
    }

    /**
     * Sentences that ask or suppose rather than state: no rule fires on them. "Do not ..." is an
     * order, not a question: the {@code do-not} convention starts with it.
     */
    static final Pattern NOT_A_STATEMENT = Pattern.compile(
            "^(?:\\W*)(?:if|whether|should|could|would|can|do(?!\\s+not\\b)|does|did|is|are|was|were|what|why|how|when|which"
                    + "|maybe|perhaps)\\b");
    /** Sentences that weigh, test or report a question rather than settle it. */
    static final Pattern TENTATIVE = Pattern.compile(
            "\\blet me (?:check|see|try|think|look|verify)\\b|\\b(?:check|see|ask(?:ing)?|wonder(?:ing)?)\\s+(?:if|whether)\\b"
                    + "|\\basking (?:about|whether|if)\\b|\\bwants? to know\\b|\\bmight\\b|\\bconsider(?:ing)?\\b|\\bor\\s+(?:maybe|perhaps)\\b");
    /** A decision cue under negation ("we have not decided", "didn't switch"). */
    static final Pattern NEGATED = Pattern.compile(
            "\\b(?:not|n't|never|no)\\s+(?:yet\\s+|really\\s+|actually\\s+)?(?:decided?|chosen|chose|switch(?:ed)?|replace[d]?|migrated?)\\b|\\bundecided\\b");

    /** Decisions: said by anyone; first match names the rule. */
    static final List<Rule> DECISION = List.of(
            rule("instead-of", "\\binstead of\\s+\\S|(?:^|[,;:]\\s*)instead\\b[ ,]+\\w|\\w\\s+instead\\s*(?:[.!)]*$|,)"),
            rule("rather-than", "\\brather than\\b"),
            rule("decided", "\\b(?:we|i|they|you)\\s+(?:have\\s+|'ve\\s+|just\\s+)?decided\\b|\\bdecided\\s+(?:to|on|against|that)\\b"
                    + "|\\bdecision\\s*(?::|is\\b|was\\b|made\\b)|\\b(?:architectural|design|technical|framework|final|key)\\s+decision\\b"),
            rule("switched", "\\b(?:switch(?:ed|ing)?|swap(?:ped|ping)?|migrat(?:e|ed|ing))\\s+(?:over\\s+|back\\s+)?"
                    + "(?:from\\s+\\S.{0,60}?\\s+|(?:the\\s+|our\\s+|its\\s+)?[\\w.-]+\\s+(?:[\\w.-]+\\s+)?)?to\\b"
                    + "|\\bmoved? away from\\b|\\b(?:went|go|going)\\s+back\\s+to\\b|\\brevert(?:ed|ing)?\\b.{0,60}\\b(?:back|to)\\b"),
            rule("replaced", "\\breplac(?:e|ed|ing)\\s+\\S.{0,80}?\\s+with\\b|\\bin favou?r of\\b"),
            rule("chose", "\\b(?:chose|chosen|opted\\s+(?:for|to)|picked|settled\\s+on|went\\s+with|go(?:ing)?\\s+with|stick(?:ing)?\\s+with"
                    + "|let's\\s+use|let\\s+us\\s+use|we(?:'ll|\\s+will)\\s+use|(?:is|seems like|looks like)\\s+the\\s+best\\s+(?:fit|choice|option))\\b"),
            rule("because", "\\b(?:use[sd]?|using|chose|prefer(?:red)?|keep|kept|stick|drop(?:ped)?|avoid(?:ed)?|remov(?:e|ed)|want|need)\\b"
                    + ".*\\b(?:because|since|so that|to avoid)\\b"),
            rule("we-want", "\\bwe\\s+(?:explicitly\\s+|really\\s+|definitely\\s+|specifically\\s+)?(?:don't|don\u2019t|do not)\\s+want\\b"
                    + "|\\bwe\\s+(?:explicitly|specifically)\\s+want\\b|\\bbecause\\s+we\\s+(?:want|need)\\b"),
            rule("first", "\\bwe\\s+(?:do|go|are|'re|stay|build|work)\\s+[\\w-]+-first\\b|\\b[\\w-]+-first\\s+is\\s+(?:a|the|our)\\b"),
            rule("not-the-other", "\\w,\\s+not\\s+(?:a|an|the|some|just)\\s+\\w"));

    /** Conventions: said by the user only; first match names the rule. */
    static final List<Rule> CONVENTION = List.of(
            rule("always", "^(?:please\\s+)?always\\b|\\b(?:you|we|i)\\s+(?:should\\s+|must\\s+)?always\\b"
                    + "|\\balways\\s+(?:use|run|write|add|keep|check|start|prefer|put|make|do|commit|test|include|ask|read|follow|call|return|create|format|document)\\b"),
            rule("never", "^(?:please\\s+)?never\\b|\\b(?:you|we)\\s+(?:should\\s+|must\\s+)?never\\b"
                    + "|\\bnever\\s+(?:use|run|write|add|commit|push|call|guess|edit|change|do|make|mock|modify|delete|touch|create|skip|include|hard-?code)\\b"),
            rule("do-not", "^(?:please\\s+)?(?:don't|do not|dont|avoid|stop)\\b|\\b(?:you|we)\\s+(?:should\\s+)?(?:don't|do not|must not|mustn't|should not|shouldn't)\\b"
                    + "(?!\\s+(?:need|know|have|see|think|understand|get)\\b)"),
            rule("must", "\\b(?:must|mandatory)\\b"),
            rule("prefer", "\\b(?:i|we)\\s+(?:would\\s+|'d\\s+)?prefer\\b|^prefer\\b|\\bprefer\\s+\\S.{0,60}\\bover\\b"),
            rule("please-use", "\\bplease\\s+(?:use|keep|stick|always|never|don't|do not|avoid)\\b"),
            rule("from-now-on", "\\b(?:from now on|going forward|from here on|by convention|as a rule)\\b"));

    /** Tools that fetch a web page. */
    static final Set<String> FETCH_TOOLS = Set.of("WebFetch", "web_fetch", "fetch", "browse", "fetch_url");
    /** Tools that search the web. */
    static final Set<String> SEARCH_TOOLS = Set.of("WebSearch", "web_search", "google_web_search", "search_web");
    /** Tools that read one or more files. */
    static final Set<String> READ_TOOLS = Set.of("Read", "NotebookRead", "read_file", "read_many_files", "read", "view");
    /** Tools whose name says they serve documentation (MCP documentation servers). */
    static final Pattern DOCS_TOOL = Pattern.compile("(?i)docs|documentation|context7");
    /** Shell commands that print a file. */
    static final Pattern SHELL_READ = Pattern.compile("^(?:cat|less|more|head|tail|bat|nl|sed\\s+-n)\\b");
    static final Set<String> SHELL_TOOLS = Set.of("Bash", "shell", "local_shell", "container.exec", "exec_command",
            "shell_command", "run_shell_command", "execute_command", "run", "bash");
    /** A documentation file: a README or changelog, a markdown/reST/AsciiDoc/PDF file, anything under docs/. */
    static final Pattern DOC_PATH = Pattern.compile(
            "(?i)(?:^|[/\\s\"'])(?:readme|changelog|contributing)[^/\\s]*|\\.(?:md|mdx|markdown|rst|adoc|pdf)\\b|(?:^|[/\\s\"'])docs?/");

    private ClassifierRules() {
    }

    /** The lookup rule a tool call fires, or null. */
    static String lookupRule(String tool, String input) {
        if (FETCH_TOOLS.contains(tool)) {
            return "web-fetch";
        }
        if (SEARCH_TOOLS.contains(tool)) {
            return "web-search";
        }
        if (tool.startsWith("mcp__") && DOCS_TOOL.matcher(tool).find()) {
            return "docs-tool";
        }
        if (READ_TOOLS.contains(tool) && DOC_PATH.matcher(input).find()) {
            return "doc-read";
        }
        if (SHELL_TOOLS.contains(tool) && SHELL_READ.matcher(input.strip()).find() && DOC_PATH.matcher(input).find()) {
            return "doc-read";
        }
        return null;
    }

    /** The first rule of {@code rules} that fires on the sentence, or null. */
    static Rule first(List<Rule> rules, String masked) {
        for (Rule r : rules) {
            if (r.matches(masked)) {
                return r;
            }
        }
        return null;
    }
}
