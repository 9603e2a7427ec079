package io.vecflow.dataplane.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a {@link DataplaneConfig} from YAML (kebab-case keys, unknown keys and wrong types refused with the line and
 * key path) and hands it to the {@link DataplaneConfigValidator}; also serves the documented example.
 */
final class DataplaneConfigLoader {
    private DataplaneConfigLoader() {}

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .setPropertyNamingStrategy(PropertyNamingStrategies.KEBAB_CASE)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    /**
     * Reads and validates a configuration file.
     *
     * @throws DataplaneConfigException unknown keys, wrong types, values out of range, dangling port names, a missing
     *                                  pcap file (each problem names the file, line and key path)
     * @throws IOException              the file cannot be read (the message names it: a directory, an I/O error)
     */
    static DataplaneConfig load(Path file) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (java.nio.file.FileSystemException e) {
            throw e; // names the file already (NoSuchFileException, AccessDeniedException, ...)
        } catch (IOException e) {
            // e.g. "Is a directory" from read(2), or malformed UTF-8: say which file
            throw new IOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        return parse(text, file.toString(), dir);
    }

    /**
     * Parses and validates YAML text.
     *
     * @param yaml    the text
     * @param source  name used in messages (the file name)
     * @param baseDir directory relative pcap paths resolve against; {@code null} resolves against the working
     *                directory and skips the file-exists check
     * @throws DataplaneConfigException as {@link #load}
     */
    static DataplaneConfig parse(String yaml, String source, Path baseDir) {
        DataplaneConfig c;
        try {
            c = yaml.isBlank() ? null : YAML.readValue(yaml, DataplaneConfig.class);
        } catch (UnrecognizedPropertyException e) {
            List<String> known = new ArrayList<>();
            for (Object k : e.getKnownPropertyIds()) {
                known.add(String.valueOf(k));
            }
            java.util.Collections.sort(known);
            throw new DataplaneConfigException(List.of(source + " line " + line(e.getLocation()) + ": " + path(e)
                    + ": unknown key (known here: " + String.join(", ", known) + ")"));
        } catch (JsonProcessingException e) {
            if (e instanceof com.fasterxml.jackson.databind.exc.MismatchedInputException
                    && e.getOriginalMessage().startsWith("No content to map")) {
                c = null; // only comments: every default
            } else {
                String where = e instanceof JsonMappingException m && !m.getPath().isEmpty() ? path(m) + ": " : "";
                String what = e.getOriginalMessage().lines().findFirst().orElse("");
                if (e instanceof com.fasterxml.jackson.core.JsonParseException) {
                    // A YAML syntax error: SnakeYAML's message is the context, then the problem, each line followed
                    // by an indented position and excerpt; keep both (the problem says what is wrong).
                    what = String.join("; ", e.getOriginalMessage().lines()
                            .filter(l -> !l.isBlank() && !Character.isWhitespace(l.charAt(0))).toList());
                } else if (e instanceof com.fasterxml.jackson.databind.exc.InvalidFormatException f
                        && f.getTargetType() != null) {
                    what = DataplaneConfigValidator.quote(f.getValue()) + " is not " + expected(f.getTargetType());
                } else if (e instanceof com.fasterxml.jackson.databind.exc.MismatchedInputException f
                        && f.getTargetType() != null) {
                    what = "expected " + expected(f.getTargetType());
                }
                throw new DataplaneConfigException(List.of(source + " line " + line(e.getLocation()) + ": " + where
                        + what));
            }
        }
        if (c == null) {
            c = new DataplaneConfig();
        }
        DataplaneConfigValidator.validate(c, source, yaml, baseDir);
        return c;
    }

    /** The documented example configuration (resource {@code dataplane-example.yaml}). */
    static String example() {
        try (InputStream in = DataplaneConfig.class.getResourceAsStream("dataplane-example.yaml")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static int line(JsonLocation l) {
        return l == null ? 0 : l.getLineNr();
    }

    /** What a YAML value of Java type {@code t} must look like, in the words of the example config. */
    private static String expected(Class<?> t) {
        if (List.class.isAssignableFrom(t) || t.isArray()) {
            return "a list, e.g. [a, b] or one \"- item\" per line";
        }
        if (t == int.class || t == Integer.class || t == long.class || t == Long.class) {
            return "a whole number";
        }
        if (t == double.class || t == Double.class) {
            return "a number";
        }
        if (t == boolean.class || t == Boolean.class) {
            return "true or false";
        }
        if (t == String.class) {
            return "a single value (text or number)";
        }
        return "a section of key: value lines";
    }

    private static String path(JsonMappingException e) {
        StringBuilder b = new StringBuilder();
        for (JsonMappingException.Reference r : e.getPath()) {
            if (r.getFieldName() != null) {
                b.append(b.isEmpty() ? "" : ".").append(r.getFieldName());
            } else {
                b.append('[').append(r.getIndex()).append(']');
            }
        }
        return b.toString();
    }
}
