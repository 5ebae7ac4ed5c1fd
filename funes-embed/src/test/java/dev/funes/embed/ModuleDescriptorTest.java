package dev.funes.embed;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ResolvedModule;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The compiled {@code module-info} of {@code dev.funes.embed}: only {@code dev.funes.embed} is
 * exported, and the module resolves on a module path made of its runtime jars (so every module it
 * requires exists under that name).
 */
class ModuleDescriptorTest {

    @Test
    void exportsOnlyItsApiPackage() {
        ModuleDescriptor module = ModuleFinder.of(Path.of("target/classes")).find("dev.funes.embed").orElseThrow()
                .descriptor();
        assertThat(module.isAutomatic()).isFalse();
        assertThat(module.opens()).isEmpty();
        assertThat(module.exports().stream().map(e -> e.source() + (e.isQualified() ? " to " + e.targets() : ""))
                .collect(Collectors.toSet())).isEqualTo(Set.of("dev.funes.embed"));
    }

    @Test
    void resolvesWithTheModulesItRequires() {
        // This module's classes, funes-core's (a named module too), and the runtime jars it needs;
        // the test libraries on the class path are left out.
        List<Path> path = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(Path::of)
                .filter(p -> p.endsWith(Path.of("target/classes")) || p.getFileName().toString().matches(
                        "(funes-core-[^t]*|jackson-.*|slf4j-api-.*|api-.*|tokenizers-.*|gson-.*)\\.jar"))
                .toList();
        Configuration resolved = ModuleLayer.boot().configuration().resolve(ModuleFinder.of(path.toArray(Path[]::new)),
                ModuleFinder.of(), Set.of("dev.funes.embed"));
        assertThat(resolved.modules().stream().map(ResolvedModule::name).collect(Collectors.toSet()))
                .contains("dev.funes.embed", "dev.funes.core", "ai.djl.api", "ai.djl.tokenizers",
                        "com.fasterxml.jackson.databind", "org.slf4j");
    }
}
