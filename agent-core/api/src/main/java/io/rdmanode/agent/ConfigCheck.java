// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.agent;

import java.nio.file.Path;
import java.util.List;
import org.osgi.annotation.versioning.ProviderType;

/**
 * Checks a configuration file exactly as the running agent checks a saved edit (HOCON syntax and
 * substitutions, then every section against the MetaType of the installed bundles: types, ranges, options,
 * required and unknown keys with suggestions), without applying anything. The config bundle provides it;
 * {@code rdma-node-agent check-config FILE} calls it in a framework of its own.
 *
 * @since 1.0
 */
@ProviderType
public interface ConfigCheck {

    /**
     * @param file the HOCON file to check
     * @return its problems; {@link Result#valid()} when the running agent would apply it
     */
    Result check(Path file);

    /**
     * What a check found, each line {@code file:line: key: message}.
     *
     * @param errors   problems that make the agent reject the file (nothing would change)
     * @param warnings what the agent would apply but log (e.g. a section no installed bundle claims)
     */
    record Result(List<String> errors, List<String> warnings) {

        public Result {
            errors = List.copyOf(errors);
            warnings = List.copyOf(warnings);
        }

        public boolean valid() {
            return errors.isEmpty();
        }
    }
}
