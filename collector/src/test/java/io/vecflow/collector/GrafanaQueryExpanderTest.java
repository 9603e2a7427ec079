package io.vecflow.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.collector.GrafanaQueryExpander.Context;
import io.vecflow.collector.GrafanaQueryExpander.Variable;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Exact expansions of every macro of grafana-clickhouse-datasource v4.x ({@code pkg/macros/macros.go}, the SDK's
 * {@code sqlutil} defaults, the frontend's {@code applyConditionalAll}) and of Grafana's variable formats, as
 * {@link GrafanaQueryExpander} implements them.
 */
class GrafanaQueryExpanderTest {
    // 2024-01-02T03:04:05.678Z .. 2024-01-03T01:00:00.999Z; seconds 1704164645 .. 1704243600
    private static final Context CTX = new Context(Instant.parse("2024-01-02T03:04:05.678Z"),
            Instant.parse("2024-01-03T01:00:00.999Z"), Duration.ofSeconds(2));

    private static String macro(String sql) {
        return GrafanaQueryExpander.interpolate(sql, CTX);
    }

    @Test
    void timeMacros() {
        assertThat(macro("$__fromTime")).isEqualTo("toDateTime(1704164645)");
        assertThat(macro("$__toTime")).isEqualTo("toDateTime(1704243600)");
        assertThat(macro("$__fromTime_ms")).isEqualTo("fromUnixTimestamp64Milli(1704164645678)");
        assertThat(macro("$__toTime_ms")).isEqualTo("fromUnixTimestamp64Milli(1704243600999)");
        assertThat(macro("WHERE $__timeFilter(TimeReceived)"))
                .isEqualTo("WHERE TimeReceived >= toDateTime(1704164645) AND TimeReceived <= toDateTime(1704243600)");
        assertThat(macro("$__timeFilter_ms(ts)")).isEqualTo(
                "ts >= fromUnixTimestamp64Milli(1704164645678) AND ts <= fromUnixTimestamp64Milli(1704243600999)");
        assertThat(macro("$__dateFilter(d)")).isEqualTo("d >= toDate('2024-01-02') AND d <= toDate('2024-01-03')");
        String dt = "(d >= toDate('2024-01-02') AND d <= toDate('2024-01-03')) AND "
                + "(t >= toDateTime(1704164645) AND t <= toDateTime(1704243600))";
        assertThat(macro("$__dateTimeFilter(d, t)")).isEqualTo(dt);
        assertThat(macro("$__dt( d ,t )")).isEqualTo(dt);
        // the SDK defaults the plugin does not replace
        assertThat(macro("$__timeFrom(t)")).isEqualTo("t >= '2024-01-02T03:04:05Z'");
        assertThat(macro("$__timeTo(t)")).isEqualTo("t <= '2024-01-03T01:00:00Z'");
        assertThat(macro("$__timeGroup(t, day)")).isEqualTo("datepart(day, t),datepart(month, t),datepart(year, t)");
        assertThat(macro("[$__table|$__column]")).isEqualTo("[|]");
    }

    @Test
    void intervalMacros() {
        assertThat(macro("$__timeInterval(TimeReceived)"))
                .isEqualTo("toStartOfInterval(toDateTime(TimeReceived), INTERVAL 2 second)");
        assertThat(macro("$__timeInterval_ms(ts)"))
                .isEqualTo("toStartOfInterval(toDateTime64(ts, 3), INTERVAL 2000 millisecond)");
        assertThat(macro("intDiv(x, $__interval_s) * $__interval_s")).isEqualTo("intDiv(x, 2) * 2");
        assertThat(macro("'$__interval' $__interval_ms")).isEqualTo("'2s' 2000");
        Context sub = new Context(CTX.from(), CTX.to(), Duration.ofMillis(500));
        assertThat(GrafanaQueryExpander.interpolate("$__interval_s $__timeInterval(t) $__interval", sub))
                .isEqualTo("1 toStartOfInterval(toDateTime(t), INTERVAL 1 second) 500ms");
        Context odd = new Context(CTX.from(), CTX.to(), Duration.ofMillis(1999));
        assertThat(GrafanaQueryExpander.interpolate("$__interval_s", odd)).isEqualTo("1"); // int(1.999)
        assertThat(GrafanaQueryExpander.formatInterval(Duration.ofMinutes(90))).isEqualTo("1h");
        assertThat(GrafanaQueryExpander.formatInterval(Duration.ofDays(800))).isEqualTo("2y");
    }

    @Test
    void macroArgumentsNestAndAreTrimmed() {
        assertThat(macro("$__timeFilter( toDateTime(x, 'UTC') )"))
                .isEqualTo("toDateTime(x, 'UTC') >= toDateTime(1704164645) AND toDateTime(x, 'UTC') <= "
                        + "toDateTime(1704243600)");
        // every occurrence of the same text is replaced, longer names first
        assertThat(macro("$__toTime_ms,$__toTime,$__toTime")).isEqualTo(
                "fromUnixTimestamp64Milli(1704243600999),toDateTime(1704243600),toDateTime(1704243600)");
        assertThatThrownBy(() -> macro("$__timeFilter"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expected 1 argument, received 0");
        assertThatThrownBy(() -> macro("$__timeFilter(a, b)"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("received 2");
        assertThatThrownBy(() -> macro("$__timeFilter(a"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("missing close bracket");
        assertThat(macro("$__nothing($x)")).isEqualTo("$__nothing($x)");
    }

    @Test
    void conditionalAll() {
        List<String> opts = List.of("::ffff:10.0.0.1", "2001:db8::1");
        Map<String, Variable> all = Map.of("agent", Variable.all("agent", opts));
        Map<String, Variable> one = Map.of("agent", Variable.of("agent", List.of("2001:db8::1"), opts));
        String sql = "WHERE $__conditionalAll(IPv6NumToString(AgentAddress) IN (${agent:singlequote}), $agent) AND x";
        assertThat(GrafanaQueryExpander.applyConditionalAll(sql, all)).isEqualTo("WHERE 1=1 AND x");
        assertThat(GrafanaQueryExpander.applyConditionalAll(sql, one))
                .isEqualTo("WHERE IPv6NumToString(AgentAddress) IN (${agent:singlequote}) AND x");
        assertThat(GrafanaQueryExpander.expand(sql, one, CTX))
                .isEqualTo("WHERE IPv6NumToString(AgentAddress) IN ('2001:db8::1') AND x");
        // ${var} form, nested brackets and commas in the condition, two macros
        String two = "$__conditionalAll((InIf IN (${i:csv}) OR OutIf IN (f(1, 2))), ${i}) AND "
                + "$__conditionalAll(a = 1, $agent)";
        Map<String, Variable> mixed = Map.of("agent", Variable.all("agent", opts),
                "i", Variable.of("i", List.of("3", "7"), List.of("3", "7", "9")));
        assertThat(GrafanaQueryExpander.expand(two, mixed, CTX))
                .isEqualTo("(InIf IN (3,7) OR OutIf IN (f(1, 2))) AND 1=1");
        // an empty selection counts as All; an unknown variable keeps the condition
        Map<String, Variable> none = Map.of("agent", Variable.of("agent", List.of(), opts));
        assertThat(GrafanaQueryExpander.applyConditionalAll("$__conditionalAll(c, $agent)", none)).isEqualTo("1=1");
        assertThat(GrafanaQueryExpander.applyConditionalAll("$__conditionalAll(c, $nope)", all)).isEqualTo("c");
        // other than two arguments: the plugin returns the query unchanged
        assertThat(GrafanaQueryExpander.applyConditionalAll("$__conditionalAll(a, b, $agent)", all))
                .isEqualTo("$__conditionalAll(a, b, $agent)");
        assertThatThrownBy(() -> GrafanaQueryExpander.applyConditionalAll("$__conditionalAll(x = '$'', $agent)", one))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("String.replace");
    }

    @Test
    void variableFormats() {
        Map<String, Variable> v = Map.of(
                "m", Variable.of("m", List.of("a", "it's"), List.of("a", "it's", "z")),
                "all", Variable.all("all", List.of("x", "y")),
                "s", Variable.single("s", "flows_5m"));
        assertThat(GrafanaQueryExpander.replaceVariables(
                "${m:singlequote}|${m:csv}|${m:doublequote}|$m|${m}|[[m]]|${m:raw}", v, CTX))
                .isEqualTo("'a','it\\'s'|a,it's|\"a\",\"it's\"|'a','it's'|'a','it's'|'a','it's'|a,it's");
        assertThat(GrafanaQueryExpander.replaceVariables("${all:singlequote} $all ${all:csv}", v, CTX))
                .isEqualTo("'x','y' 'x','y' x,y");
        assertThat(GrafanaQueryExpander.replaceVariables("db.${s} '$s' $s_x $__timeFilter(t) $__interval_s", v, CTX))
                .isEqualTo("db.flows_5m 'flows_5m' $s_x $__timeFilter(t) $__interval_s");
        assertThat(GrafanaQueryExpander.replaceVariables("$__from $__to $__interval $__interval_ms $__range_s", v, CTX))
                .isEqualTo("1704164645678 1704243600999 2s 2000 78955");
        assertThatThrownBy(() -> GrafanaQueryExpander.replaceVariables("${m:json}", v, CTX))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(":json");
    }

    @Test
    void grafanaInterval() {
        assertThat(GrafanaQueryExpander.grafanaInterval(Duration.ofHours(1), 1000)).isEqualTo(Duration.ofSeconds(5));
        assertThat(GrafanaQueryExpander.grafanaInterval(Duration.ofDays(2), 1000)).isEqualTo(Duration.ofMinutes(2));
        assertThat(GrafanaQueryExpander.grafanaInterval(Duration.ofDays(30), 1000)).isEqualTo(Duration.ofMinutes(30));
        assertThat(GrafanaQueryExpander.grafanaInterval(Duration.ofMinutes(5), 1000)).isEqualTo(Duration.ofMillis(200));
    }
}
