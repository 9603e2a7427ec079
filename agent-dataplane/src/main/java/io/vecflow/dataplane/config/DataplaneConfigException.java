package io.vecflow.dataplane.config;

import java.util.List;

/**
 * A dataplane configuration that cannot be used: every problem found, one per line, each naming the source, the line
 * and the key path (e.g. {@code dp.yaml line 7: ports[1].name: "eth0" is already the name of ports[0]}).
 */
public final class DataplaneConfigException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    /** @param problems one message per problem, at least one */
    public DataplaneConfigException(List<String> problems) {
        super(String.join("\n", problems));
        this.problems = List.copyOf(problems);
    }

    /** The problems, in document order of the checks. */
    public List<String> problems() {
        return problems;
    }
}
