package io.vecflow.lab.farm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** {@link MeanField} reproduces docs/load-balancing.md §5's model table (its printed two decimals). */
class TheoryTest {
    @Test
    void meanFieldReproducesTheSpecTable() {
        double[] rho = {0.7, 0.8, 0.9, 0.95};
        double[][] table = { // random, JSQ(2), SR_1..SR_4 (docs/load-balancing.md §5)
            {3.33, 1.61, 1.96, 1.81, 2.01, 2.26},
            {5.00, 1.95, 2.78, 2.24, 2.34, 2.61},
            {10.0, 2.61, 5.26, 3.49, 3.11, 3.26},
            {20.0, 3.38, 10.3, 6.00, 4.45, 4.13}};
        for (int i = 0; i < rho.length; i++) {
            double r = rho[i];
            assertThat(MeanField.random(r)).as("random %s", r).isCloseTo(table[i][0], within(0.006));
            assertThat(MeanField.jsq2(r)).as("jsq2 %s", r).isCloseTo(table[i][1], within(0.006));
            for (int c = 1; c <= 4; c++) {
                double tol = table[i][1 + c] >= 10 ? 0.06 : 0.006;
                assertThat(MeanField.srlb(r, c)).as("SR_%d at %s", c, r).isCloseTo(table[i][1 + c], within(tol));
            }
        }
        // SR_1 is 1/(1 − ρ²) in closed form
        assertThat(MeanField.srlb(0.9, 1)).isCloseTo(1 / (1 - 0.81), within(1e-9));
    }
}
