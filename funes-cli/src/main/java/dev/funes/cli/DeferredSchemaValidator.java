package dev.funes.cli;

import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.json.schema.jackson2.DefaultJsonSchemaValidator;
import java.util.Map;

/**
 * The MCP SDK's JSON Schema validator, made when a tool call's arguments are first checked (or
 * when {@link #prepare()} asks for it beforehand), not while the server starts. Making it
 * compiles the JSON Schema 2020-12 meta-schema with its validators (hundreds of classes); the
 * SDK did so, and checked every tool's input schema against it, before {@code funes mcp} could
 * answer {@code initialize}: about a second of a busy machine's start (docs/BENCHMARKS.md, "Cold
 * start"). Tool arguments are checked exactly as before; the tools' own schemas, fixed in
 * {@link McpTools}, are checked by {@code McpToolsTest} instead of at every start.
 */
final class DeferredSchemaValidator implements JsonSchemaValidator {

    private volatile JsonSchemaValidator validator;

    /** Makes the validator now, on the calling thread, unless it is made already. */
    synchronized JsonSchemaValidator prepare() {
        if (validator == null) {
            validator = new DefaultJsonSchemaValidator();
        }
        return validator;
    }

    /** Whether the validator is made: a tool call's arguments are then checked without waiting. */
    boolean prepared() {
        return validator != null;
    }

    @Override
    public ValidationResponse validate(Map<String, Object> schema, Object structuredContent) {
        return prepare().validate(schema, structuredContent);
    }

    /** The server's own tool schemas at its start: fixed in the code, and checked by the tests. */
    @Override
    public ValidationResponse validateSchema(Map<String, Object> schema) {
        return ValidationResponse.asValid(null);
    }
}
