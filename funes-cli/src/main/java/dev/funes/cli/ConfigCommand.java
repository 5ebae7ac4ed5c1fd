package dev.funes.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.funes.embed.BundledModel;
import dev.funes.redact.RedactionRule;
import dev.funes.store.FunesStore;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code funes config}: the effective settings and where each came from (a flag, a variable, a
 * config file's line, the store, or the default). Reads the config files and the store's recorded
 * model only; opens nothing else.
 */
@Command(name = "config", description = "Print the effective settings and where each came from (flags, $FUNES_HOME, config files, defaults).")
final class ConfigCommand implements Callable<Integer> {

    @Mixin
    StoreOptions storeOptions;

    @Option(names = {"-j", "--json"}, description = "Print a JSON object: each setting's value and source.")
    boolean json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** One line of the report: a setting's values and where they came from. */
    private record Row(String name, List<String> values, String source) {
    }

    @Override
    public Integer call() throws Exception {
        FunesConfig.Setting<Path> store = storeOptions.dirSetting();
        FunesConfig config = FunesConfig.of(store.value());
        List<Row> rows = new ArrayList<>();
        rows.add(new Row(FunesConfig.STORE, List.of(store.value().toString()), store.source()));
        FunesConfig.Setting<List<Path>> roots = config.roots();
        rows.add(new Row(FunesConfig.INDEX_PATHS, strings(roots.value()), roots.source()));
        rows.add(model(store.value(), config));
        Optional<FunesConfig.Setting<Path>> rules = config.redactionRules();
        List<String> ruleFiles = new ArrayList<>();
        List<String> ruleSources = new ArrayList<>();
        rules.ifPresent(r -> {
            ruleFiles.add(r.value().toString());
            ruleSources.add(r.source() + (Files.isRegularFile(r.value()) ? "" : " (missing: indexing fails)"));
        });
        Path own = store.value().resolve(RedactionRule.FILE_NAME);
        if (Files.isRegularFile(own)) {
            ruleFiles.add(own.toString());
            ruleSources.add("the store's own rules file");
        }
        rows.add(new Row(FunesConfig.REDACTION_RULES, ruleFiles,
                ruleSources.isEmpty() ? "default: the built-in rules only" : "built-in rules, then " + String.join("; ", ruleSources)));
        rows.add(config.team().map(t -> new Row(FunesConfig.TEAM, List.of(t.value().toString()), t.source()))
                .orElseGet(() -> new Row(FunesConfig.TEAM, List.of(), "default: none (funes mcp searches the local store only)")));
        dev.funes.store.StoreOptions defaults = dev.funes.store.StoreOptions.defaults();
        rows.add(weight(FunesConfig.DENSE_WEIGHT, config.denseWeight(), defaults.fusion().denseWeight()));
        rows.add(weight(FunesConfig.NEIGHBOUR_WEIGHT, config.neighbourWeight(), defaults.rerank().neighbourWeight()));
        FunesConfig.Setting<Path> userFile = config.userFileState();
        FunesConfig.Setting<Path> storeFile = config.storeFileState();
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            ObjectNode node = HitJson.MAPPER.createObjectNode();
            for (Row row : rows) {
                ObjectNode setting = node.putObject(row.name());
                if (row.name().equals(FunesConfig.INDEX_PATHS) || row.name().equals(FunesConfig.REDACTION_RULES)) {
                    ArrayNode values = setting.putArray("value");
                    row.values().forEach(values::add);
                } else {
                    setting.put("value", row.values().isEmpty() ? null : row.values().get(0));
                }
                setting.put("source", row.source());
            }
            ObjectNode files = node.putObject("files");
            files.putObject("user").put("path", userFile.value().toString()).put("state", userFile.source());
            files.putObject("store").put("path", storeFile.value().toString()).put("state", storeFile.source());
            out.println(HitJson.MAPPER.writeValueAsString(node));
            return 0;
        }
        for (Row row : rows) {
            List<String> values = row.values().isEmpty() ? List.of("(none)") : row.values();
            for (int i = 0; i < values.size(); i++) {
                String name = i == 0 ? row.name() : "";
                String source = i == 0 ? row.source() : "";
                out.println(String.format("%-16s %-40s %s", name, values.get(i), source).stripTrailing());
            }
        }
        out.println(String.format("%-16s %-40s %s", "config files", userFile.value(), userFile.source()));
        out.println(String.format("%-16s %-40s %s", "", storeFile.value(), storeFile.source()));
        return 0;
    }

    /** The store's recorded model wins; a new store takes the config's, else the default. */
    private static Row model(Path dir, FunesConfig config) {
        Optional<FunesConfig.Setting<String>> configured = config.model();
        Optional<String> recorded = FunesStore.recordedModelId(dir);
        if (recorded.isPresent()) {
            String note = configured.filter(c -> !c.value().equals(recorded.get()))
                    .map(c -> " (" + c.source() + " asks " + c.value() + " for new stores)").orElse("");
            return new Row(FunesConfig.MODEL, List.of(recorded.get()), "the store records it" + note);
        }
        return configured.map(c -> new Row(FunesConfig.MODEL, List.of(c.value()), c.source()))
                .orElseGet(() -> new Row(FunesConfig.MODEL, List.of(BundledModel.DEFAULT.id()), "default"));
    }

    /** A weight's row: the config's value and line, else the store's default. */
    private static Row weight(String name, Optional<FunesConfig.Setting<Double>> configured, double fallback) {
        return configured.map(w -> new Row(name, List.of(number(w.value())), w.source()))
                .orElseGet(() -> new Row(name, List.of(number(fallback)), "default"));
    }

    /** A weight as a person writes it: {@code 0.4}, {@code 0}. */
    private static String number(double value) {
        return java.math.BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
    }

    private static List<String> strings(List<Path> paths) {
        return paths.stream().map(Path::toString).toList();
    }
}
