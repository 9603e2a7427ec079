package io.vecflow.collector.query;

import io.vecflow.collector.schema.FlowSchema;

/**
 * A column one may filter on (and, when {@code dimension}, group by), as a source's table defines it.
 *
 * @param name the schema's spelling ({@code SrcAddr})
 * @param kind what its values are
 * @param type its logical schema type (its width: {@code UINT8} is at most 255)
 * @param dimension true when the console may group by it
 */
public record QueryColumn(String name, ColumnKind kind, FlowSchema.Type type, boolean dimension) {
    /** @return the greatest value of an unsigned integer column (0 for other types) */
    public long maxValue() {
        return switch (type) {
            case UINT8 -> 0xFFL;
            case UINT16 -> 0xFFFFL;
            case UINT32, ARRAY_UINT32 -> 0xFFFF_FFFFL;
            case UINT64 -> Long.MAX_VALUE;
            default -> 0;
        };
    }
}
