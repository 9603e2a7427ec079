package io.vecflow.dataplane.plugins.clove;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.dataplane.plugins.lb.encap.LbPackets;
import org.junit.jupiter.api.Test;

/** {@link Clove#destinationOf}: which destination's tunnel an inner IPv4 destination address takes. */
class CloveDestinationsTest {
    private static Clove.DestinationSpec dest(String vtep, String prefix, int len) {
        return new Clove.DestinationSpec(LbPackets.v4int(vtep), new int[] {LbPackets.v4int(prefix)}, new int[] {len});
    }

    @Test
    void theLongestMatchingPrefixWinsWhateverTheOrder() {
        Clove.Settings s = new Clove.Settings();
        s.vtep = LbPackets.v4int("10.255.1.2");
        s.destinations.add(dest("10.255.2.2", "10.62.0.0", 16));
        s.destinations.add(dest("10.255.3.2", "10.62.5.0", 24));
        s.destinations.add(dest("10.255.4.2", "0.0.0.0", 0));
        Clove c = new Clove(s);
        assertThat(c.destinationOf(LbPackets.v4int("10.62.5.9"))).isEqualTo(1);
        assertThat(c.destinationOf(LbPackets.v4int("10.62.6.9"))).isEqualTo(0);
        assertThat(c.destinationOf(LbPackets.v4int("192.0.2.1"))).isEqualTo(2);
        s.destinations.clear();
        s.destinations.add(dest("10.255.2.2", "10.62.0.0", 16));
        Clove one = new Clove(s);
        assertThat(one.destinationOf(LbPackets.v4int("10.63.0.1"))).isEqualTo(-1);
    }
}
