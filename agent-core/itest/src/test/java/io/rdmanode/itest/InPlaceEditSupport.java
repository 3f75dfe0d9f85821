// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.itest;

import static org.junit.Assert.assertEquals;

import java.io.IOException;
import java.util.Collection;
import java.util.function.Predicate;
import javax.inject.Inject;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;

/**
 * An agent on the recorded host for tests that edit one section and check that its component applied the edit
 * in place: the file is always {@link #base()} then the edited sections, and services are compared by ID.
 */
abstract class InPlaceEditSupport extends AgentTestSupport {

    @Inject
    BundleContext context;

    /** The file's first lines, kept through every edit. */
    abstract String base();

    @Configuration
    public Option[] config() {
        return agentOptions(base() + recordedHostDiscovery());
    }

    /** Saves {@link #base()} followed by {@code sections} (give {@link #recordedHostSection()} to keep the host). */
    void edit(String sections) throws IOException {
        writeConfig(base() + sections);
    }

    /** The service ID of the one {@code type} service matching {@code filter} (null: any). */
    long serviceId(Class<?> type, String filter) throws InvalidSyntaxException {
        Collection<? extends ServiceReference<?>> refs = context.getServiceReferences(type, filter);
        assertEquals("one " + type.getSimpleName() + " " + filter, 1, refs.size());
        return (Long) refs.iterator().next().getProperty(Constants.SERVICE_ID);
    }

    /** The first {@code type} service that {@code which} accepts, held (not ungot) from here on; null if none. */
    <T> T service(Class<T> type, Predicate<T> which) {
        try {
            for (ServiceReference<T> ref : context.getServiceReferences(type, null)) {
                T service = context.getService(ref);
                if (service != null && which.test(service)) {
                    return service;
                }
            }
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
        return null;
    }
}
