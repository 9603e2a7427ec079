/**
 * Network attributes by address: MaxMind DB files (AS numbers and names, countries) read with MaxMind's reader and
 * the configured prefix list, flattened into one immutable longest-prefix table; reloaded when a file changes.
 *
 * <p>Uses {@code schema} only (the values it returns).
 */
package io.vecflow.collector.enrich.geoip;
