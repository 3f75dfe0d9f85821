// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.agent;

/**
 * A configuration value a component refuses, naming the property it concerns. The settings and parsing code a
 * component activates with throws it; the component logs and refuses it like any
 * {@link IllegalArgumentException} (the message is the whole reason), and its {@link ConfigValidator} turns it
 * into a {@link ConfigValidator.Refusal} at that property's line ({@link ConfigValidator.Refusal#of}) instead of
 * guessing the property from the message.
 *
 * @since 1.2
 */
public class SettingException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String property;

    /**
     * @param property the property key as the component's configuration names it ({@code selectors.vendors}), or
     *                 a part of it that a caller completes ({@link #within}); empty for the configuration as a whole
     * @param message  what is wrong, with the limit or the accepted forms
     */
    public SettingException(String property, String message) {
        this(property, message, null);
    }

    public SettingException(String property, String message, Throwable cause) {
        super(message, cause);
        this.property = property == null ? "" : property;
    }

    /** The property key; empty when the refusal is about the configuration as a whole. */
    public String property() {
        return property;
    }

    /**
     * The same refusal, same message, about {@code prefix.property()}: how a component places a part's refusal in
     * its own configuration ({@code vendors} of a selector engine becomes {@code selectors.vendors}).
     */
    public SettingException within(String prefix) {
        return new SettingException(property.isEmpty() ? prefix : prefix + "." + property, getMessage(), this);
    }
}
