package io.vecflow.netlink.psample;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.netlink.GenlFamilyNotFoundException;
import org.junit.jupiter.api.Test;

/** This kernel has no psample module: the GENL transport must fail loudly and say what to do (spec §2, §6 rule 3). */
class PsampleGenlTest {

    @Test
    void genlEmitterFailsAtOpenWithTheFix() {
        assertThatThrownBy(() -> PsampleEmitter.open(PsampleTransport.GENL, 0, Psample.Convention.VPP).close())
                .isInstanceOf(GenlFamilyNotFoundException.class)
                .hasMessageContaining("generic netlink family \"psample\" is not available on this kernel: "
                        + "load it with `modprobe psample`, or use `--transport usersock`");
    }

    @Test
    void genlSubscriberFailsAtOpenWithTheFix() {
        assertThatThrownBy(() -> PsampleSubscriber.open(PsampleTransport.GENL, 0).close())
                .isInstanceOf(GenlFamilyNotFoundException.class)
                .hasMessageContaining("modprobe psample")
                .hasMessageContaining("--transport usersock");
    }

    @Test
    void transportNamesParse() {
        org.assertj.core.api.Assertions.assertThat(PsampleTransport.parse("usersock")).isEqualTo(PsampleTransport.USERSOCK);
        org.assertj.core.api.Assertions.assertThat(PsampleTransport.parse("GENL")).isEqualTo(PsampleTransport.GENL);
        assertThatThrownBy(() -> PsampleTransport.parse("udp")).hasMessageContaining("genl or usersock");
    }
}
