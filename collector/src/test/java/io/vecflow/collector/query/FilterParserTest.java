package io.vecflow.collector.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The filter language (docs/console-api.md, "Filter language"): every operator per column kind rendered to the SQL
 * of both stores, precedence, and errors that name the position.
 */
class FilterParserTest {
    private static final Source FLOWS = Source.named("flows");
    private static final SqlBuilder DUCK = new SqlBuilder(SqlDialect.duckDb());

    private static String sql(String filter) {
        return DUCK.filter(FilterParser.parse(FLOWS, filter));
    }

    private static FilterException error(String filter) {
        try {
            FilterParser.parse(FLOWS, filter);
        } catch (FilterException e) {
            return e;
        }
        throw new AssertionError("parsed: " + filter);
    }

    @Test
    void everyOperatorRendersTyped() {
        assertThat(sql("Proto = tcp")).isEqualTo("(Proto = 6)");
        assertThat(sql("proto != UDP")).isEqualTo("(Proto != 17)");
        assertThat(sql("SrcPort < 1024")).isEqualTo("(SrcPort < 1024)");
        assertThat(sql("SrcPort <= 1024")).isEqualTo("(SrcPort <= 1024)");
        assertThat(sql("DstPort > 1024")).isEqualTo("(DstPort > 1024)");
        assertThat(sql("DstPort >= 1024")).isEqualTo("(DstPort >= 1024)");
        assertThat(sql("SrcAS = AS64500")).isEqualTo("(SrcAS = 64500)");
        assertThat(sql("DstPort IN (53, 443)")).isEqualTo("(DstPort IN (53, 443))");
        assertThat(sql("DstPort NOTIN (53)")).isEqualTo("NOT (DstPort IN (53))");
        assertThat(sql("EType = IPv6")).isEqualTo("(EType = 34525)");
        assertThat(sql("SrcAddr = 10.0.0.1")).isEqualTo("(SrcAddr = '\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00"
                + "\\x00\\x00\\xFF\\xFF\\x0A\\x00\\x00\\x01'::BLOB)");
        assertThat(sql("SrcAddr << 10.0.0.0/8")).startsWith("(SrcAddr BETWEEN ").contains("\\x0A\\x00\\x00\\x00")
                .contains("\\x0A\\xFF\\xFF\\xFF");
        assertThat(sql("DstAddr !<< 2001:db8::/32")).startsWith("NOT (DstAddr BETWEEN ");
        assertThat(sql("InIfName LIKE 'eth%'")).isEqualTo("(InIfName LIKE 'eth%')");
        assertThat(sql("InIfName ILIKE 'ETH%'")).isEqualTo("(InIfName ILIKE 'ETH%')");
        assertThat(sql("InIfName UNLIKE 'eth%'")).isEqualTo("NOT (InIfName LIKE 'eth%')");
        assertThat(sql("InIfName IUNLIKE 'eth%'")).isEqualTo("NOT (InIfName ILIKE 'eth%')");
        assertThat(sql("InIfName = 'it\\'s'")).isEqualTo("(InIfName = 'it''s')");
        assertThat(sql("InIfName = \"a\\\"b\"")).isEqualTo("(InIfName = 'a\"b')");
        assertThat(sql("SrcPort = DstPort")).isEqualTo("(SrcPort = DstPort)");
        assertThat(sql("Direction = egress")).isEqualTo("(Direction = 'egress')");
    }

    @Test
    void precedenceIsOrThenAndThenNotThenParentheses() {
        assertThat(sql("Proto = tcp OR Proto = udp AND SrcPort = 53"))
                .isEqualTo("((Proto = 6) OR ((Proto = 17) AND (SrcPort = 53)))");
        assertThat(sql("(Proto = tcp OR Proto = udp) AND NOT SrcPort = 53"))
                .isEqualTo("(((Proto = 6) OR (Proto = 17)) AND NOT (SrcPort = 53))");
        assertThat(sql("-- a comment\nProto = tcp /* and another */")).isEqualTo("(Proto = 6)");
        assertThat(FilterParser.parse(FLOWS, "  ")).isNull();
    }

    @Test
    void theReverseDirectionSwapsSrcAndDstAndInAndOut() {
        assertThat(DUCK.filter(FilterParser.parse(FLOWS, "SrcPort = 53 AND InIfName = 'x'", true)))
                .isEqualTo("((DstPort = 53) AND (OutIfName = 'x'))");
    }

    @Test
    void clickHouseLiteralsAreEscapedItsWay() {
        SqlBuilder ch = new SqlBuilder(SqlDialect.clickHouse(io.vecflow.collector.schema.FlowSchema.ServerFeatures
                .fromVersion("18.16.1")));
        assertThat(ch.filter(FilterParser.parse(FLOWS, "InIfName = 'a\\\\b\\'c'")))
                .isEqualTo("(InIfName = 'a\\\\b\\'c')");
        assertThat(ch.filter(FilterParser.parse(FLOWS, "SrcAddr = 10.0.0.1")))
                .isEqualTo("(SrcAddr = toFixedString(unhex('00000000000000000000ffff0a000001'), 16))");
    }

    @Test
    void errorsNameThePosition() {
        assertThat(error("Proto = tcp AND").position()).isEqualTo(15);
        assertThat(error("Proto = tcp AND").getMessage()).contains("unexpected end of filter at line 1, column 16");
        assertThat(error("Nope = 1").position()).isZero();
        assertThat(error("Nope = 1").getMessage()).contains("unknown column 'Nope'");
        assertThat(error("SrcPort = 70000").getMessage()).contains("out of range for SrcPort (0 to 65535)");
        assertThat(error("SrcPort = 70000").position()).isEqualTo(10);
        assertThat(error("SrcAddr = 300.1.1.1").getMessage()).contains("not an IPv4 or IPv6 address");
        assertThat(error("SrcAddr LIKE 'x'").getMessage()).contains("operator 'LIKE' does not apply to SrcAddr");
        assertThat(error("SrcAddr LIKE 'x'").position()).isEqualTo(8);
        assertThat(error("InIfName = 'open").getMessage()).contains("unterminated string");
        assertThat(error("Proto = tcp;").position()).isEqualTo(11);
        assertThat(error("Proto = tcp\nAND (SrcPort = 1").getMessage()).contains("line 2");
        assertThat(error("Direction = sideways").getMessage()).contains("ingress, egress, undefined");
        assertThat(error("(".repeat(40) + "Proto = tcp" + ")".repeat(40)).getMessage()).contains("nested deeper");
        assertThatThrownBy(() -> FilterParser.parse(FLOWS, "x".repeat(FilterParser.MAX_LENGTH + 1)))
                .isInstanceOf(FilterException.class).hasMessageContaining("longer than");
    }
}
