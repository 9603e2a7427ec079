package io.vecflow.dataplane.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * Where each key and list element of a YAML document was written: key paths such as {@code ports[1].name} or
 * {@code sflow.header-bytes} mapped to their 1-based line, from one pass over the parser's tokens. Used to put a line
 * number on validation errors found after binding. Control path only (allocates).
 */
final class YamlLines {
    private final Map<String, Integer> lines = new HashMap<>();

    private static final class Frame {
        final boolean array;
        final String path;
        int index = -1;
        String field;

        Frame(boolean array, String path) {
            this.array = array;
            this.path = path;
        }
    }

    private YamlLines() {}

    /** Indexes {@code yaml}; a document that does not parse gives an empty index (binding reports that error). */
    static YamlLines of(String yaml) {
        YamlLines y = new YamlLines();
        try (JsonParser p = new YAMLFactory().createParser(yaml)) {
            Deque<Frame> stack = new ArrayDeque<>();
            for (int n = 0; n < 1_000_000; n++) {
                JsonToken t = p.nextToken();
                if (t == null) {
                    break;
                }
                int line = p.currentTokenLocation().getLineNr();
                Frame top = stack.peek();
                if (t == JsonToken.FIELD_NAME) {
                    top.field = p.currentName();
                    y.lines.putIfAbsent(join(top.path, top.field), line);
                    continue;
                }
                if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
                    stack.pop();
                    continue;
                }
                String here = null;
                if (top != null) {
                    if (top.array) {
                        top.index++;
                        here = top.path + "[" + top.index + "]";
                        y.lines.putIfAbsent(here, line);
                    } else {
                        here = join(top.path, top.field);
                    }
                }
                if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                    stack.push(new Frame(t == JsonToken.START_ARRAY, here == null ? "" : here));
                }
            }
        } catch (IOException e) {
            // the binder reports the syntax error with its own line
        }
        return y;
    }

    private static String join(String parent, String field) {
        return parent.isEmpty() ? field : parent + "." + field;
    }

    /**
     * The line of {@code path}, or of its nearest written ancestor (a key left at its default has no line).
     *
     * @return 1-based line, or 0 if neither it nor any ancestor was written
     */
    int line(String path) {
        String p = path;
        while (!p.isEmpty()) {
            Integer l = lines.get(p);
            if (l != null) {
                return l;
            }
            int cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
            p = cut < 0 ? "" : p.substring(0, cut);
        }
        return 0;
    }
}
