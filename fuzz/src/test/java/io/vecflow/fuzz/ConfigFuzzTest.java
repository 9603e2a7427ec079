package io.vecflow.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.vecflow.collector.CollectorConfig;
import io.vecflow.dataplane.config.DataplaneConfig;
import io.vecflow.hsflowd.config.ConfigException;
import io.vecflow.hsflowd.config.HsflowdConfig;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzz target: the configuration parsers an operator's file goes through — hsflowd.conf
 * ({@link HsflowdConfig#parse}), the collector's YAML ({@link CollectorConfig#parse}) and the dataplane's YAML
 * ({@link DataplaneConfig#parse}); the first input byte picks the parser, the rest is the text (UTF-8, malformed
 * sequences replaced). Seeds: the example configurations and the hsflowd-compat test files
 * ({@link SeedCorpus#configSeeds}).
 *
 * <p>A finding is any of: an exception other than the parser's own ({@link ConfigException} for hsflowd.conf,
 * {@link IllegalArgumentException} for the YAML files — {@code DataplaneConfigException} is one), or one without a
 * message; a message that names no source file (each names {@code fuzz.conf} / {@code fuzz.yaml}); an input taking
 * over 5 s.
 */
class ConfigFuzzTest {
    private static final String METHOD = "parse";

    @FuzzTest(maxDuration = "60s")
    @Timeout(value = 5, unit = TimeUnit.SECONDS)
    void parse(byte[] data) throws Throwable {
        Findings.run(getClass(), METHOD, data, () -> {
            if (data.length == 0) {
                return;
            }
            String text = new String(Arrays.copyOfRange(data, 1, data.length), StandardCharsets.UTF_8);
            switch ((data[0] & 0xFF) % 3) {
                case 0 -> {
                    try {
                        HsflowdConfig.parse(text);
                    } catch (ConfigException e) {
                        require(e.getMessage() != null && !e.getMessage().isBlank(), "hsflowd.conf error without a "
                                + "message");
                    }
                }
                case 1 -> {
                    try {
                        CollectorConfig.parse(text, "fuzz.yaml");
                    } catch (IllegalArgumentException e) {
                        named(e, "collector");
                    }
                }
                default -> {
                    try {
                        DataplaneConfig.parse(text, "fuzz.yaml", null);
                    } catch (IllegalArgumentException e) {
                        named(e, "dataplane");
                    }
                }
            }
        });
    }

    private static void named(IllegalArgumentException e, String what) {
        require(e.getMessage() != null && e.getMessage().contains("fuzz.yaml"), what + " config error that does not "
                + "name its file: " + e.getMessage());
    }

    private static void require(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("invariant broken: " + what);
        }
    }
}
