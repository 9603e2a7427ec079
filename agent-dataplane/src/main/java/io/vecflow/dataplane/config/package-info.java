/**
 * The YAML configuration: the model ({@link io.vecflow.dataplane.config.DataplaneConfig} and its sections), its
 * loading and validation with every problem named by source, line and key path.
 *
 * <p>May depend on {@code control} (limits of the CLI words), {@code plugins} (their settings' defaults) and below;
 * never on the root package.
 */
package io.vecflow.dataplane.config;
