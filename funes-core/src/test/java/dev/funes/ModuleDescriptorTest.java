package dev.funes;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The compiled {@code module-info} of {@code dev.funes.core}: it exports the API packages and
 * nothing else, opens nothing, and declares the log-format plug-in service it loads.
 */
class ModuleDescriptorTest {

    /** What an application may use. A new package stays internal until it is listed here and in module-info. */
    private static final Set<String> API = Set.of("dev.funes", "dev.funes.adapter", "dev.funes.ingest", "dev.funes.redact");

    @Test
    void exportsOnlyTheApiPackagesUnqualified() {
        ModuleDescriptor module = ModuleFinder.of(Path.of("target/classes")).find("dev.funes.core").orElseThrow()
                .descriptor();
        assertThat(module.isAutomatic()).isFalse();
        assertThat(module.isOpen()).isFalse();
        assertThat(module.opens()).isEmpty();
        assertThat(module.exports()).allSatisfy(e -> assertThat(e.isQualified()).as(e.toString()).isFalse());
        assertThat(module.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet()))
                .isEqualTo(API);
        assertThat(module.packages()).containsAll(API);
        assertThat(module.uses()).containsExactly("dev.funes.ingest.LogFormat");
        assertThat(module.requires().stream().map(ModuleDescriptor.Requires::name).collect(Collectors.toSet()))
                .contains("com.fasterxml.jackson.databind", "org.slf4j");
    }
}
