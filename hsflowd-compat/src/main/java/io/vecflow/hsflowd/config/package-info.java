/**
 * hsflowd.conf: the parsed configuration ({@link io.vecflow.hsflowd.config.HsflowdConfig}), its parser
 * ({@link io.vecflow.hsflowd.config.HsflowdConfigParser}: hsflowd's tokenizer and keys, line-numbered errors and
 * warnings) and {@link io.vecflow.hsflowd.config.ConfigException}.
 *
 * <p>Depends on {@code common} only; nothing else of the agent.
 */
package io.vecflow.hsflowd.config;
