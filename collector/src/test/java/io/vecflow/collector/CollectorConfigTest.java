package io.vecflow.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.collector.schema.FlowSchema;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code clickhouse.retention-days}: a key is a table the collector creates, its own or one handed to it. */
class CollectorConfigTest {
    private static final String YAML = """
            clickhouse:
              retention-days:
                flows: 7
                lab_extra: 30
            """;

    @Test
    void retentionNamesTheCollectorsTablesAndThoseHandedToIt() {
        assertThatThrownBy(() -> CollectorConfig.parse(YAML, "c.yaml"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("c.yaml").hasMessageContaining("clickhouse.retention-days.lab_extra")
                .hasMessageContaining("a vecflow table");
        FlowSchema.Table flows = FlowSchema.table("flows");
        FlowSchema.Table extra = new FlowSchema.Table("lab_extra", flows.columns(), flows.engine(), flows.partitionBy(),
                flows.orderBy(), 90);
        CollectorConfig c = CollectorConfig.parse(YAML, "c.yaml", List.of(extra));
        Collector.Settings s = c.toSettings();
        assertThat(s.clickhouseTtlDays).containsEntry("flows", 7).containsEntry("lab_extra", 30);
        assertThat(s.clickhouseExtraTables).containsExactly(extra);
    }
}
