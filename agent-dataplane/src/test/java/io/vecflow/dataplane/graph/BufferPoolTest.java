package io.vecflow.dataplane.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** {@link BufferPool}'s layout: data areas behind 128 bytes of headroom, prepends, and reuse. */
class BufferPoolTest {
    @Test
    void framesStartBehindTheHeadroomAndPrependsMoveTheStart() {
        try (BufferPool pool = new BufferPool(4, 2048)) {
            int a = pool.alloc(), b = pool.alloc();
            assertThat(pool.headroom(a)).isEqualTo(BufferPool.HEADROOM).isEqualTo(128);
            assertThat(pool.offset(a)).isEqualTo(a * (128L + 2048) + 128);
            assertThat(Math.abs(pool.offset(b) - pool.offset(a))).isEqualTo(128 + 2048);
            assertThat(pool.data().byteSize()).isEqualTo(4 * (128L + 2048));
            // a frame filling its data area ends where the next buffer's headroom begins
            pool.data().set(ValueLayout.JAVA_BYTE, pool.offset(a) + 2047, (byte) 1);
            long before = pool.offset(a);
            pool.advance(a, -24);
            assertThat(pool.offset(a)).isEqualTo(before - 24);
            assertThat(pool.headroom(a)).isEqualTo(104);
            pool.advance(a, -104);
            assertThat(pool.headroom(a)).isZero();
            assertThatThrownBy(() -> pool.advance(a, -1)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("frame start 0 advanced by -1 bytes leaves the headroom [0, 128]");
            pool.advance(a, 128);
            assertThatThrownBy(() -> pool.advance(a, 1)).hasMessageContaining("frame start 128 advanced by 1");
            pool.advance(a, -64);
            pool.free(a);
            int again = pool.alloc();
            assertThat(again).isEqualTo(a);
            assertThat(pool.headroom(again)).as("alloc resets the frame start").isEqualTo(128);
        }
    }
}
