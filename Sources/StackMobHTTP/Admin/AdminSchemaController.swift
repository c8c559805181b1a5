import Hummingbird
import StackMobCore

/// Schemas and deploys over the admin API (docs/operations.md, "Admin API"). Changes are additive,
/// applied in one transaction, and in force at once (no restart).
///
/// - `GET /_admin/environments/<env>/schemas`: `{"schemas": {…}}`, as `schema export` prints.
/// - `GET /_admin/environments/<env>/schemas/<schema>`: one declaration.
/// - `POST /_admin/environments/<env>/schemas` with `{"schemas": {…}}`: adds schemas, fields,
///   relationships, indexes and permissions.
/// - `POST /_admin/environments/<env>/deploy` with `{"from": "development"}` or `{"schemas": {…}}`,
///   and `"dry_run": true` for the plan alone.
struct AdminSchemaController {
    let backend: Backend

    func addRoutes(to router: some RouterMethods<StackMobRequestContext>) {
        router.get("/_admin/environments/:env/schemas", use: list)
        router.get("/_admin/environments/:env/schemas/:schema", use: read)
        router.post("/_admin/environments/:env/schemas", use: apply)
        router.post("/_admin/environments/:env/deploy", use: deploy)
    }

    @Sendable func list(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let environment = try AdminRequest.environment(context, backend: backend)
        return JSONResponse.make(SchemaDeclaration.document(try await environment.datastore.declarations()))
    }

    @Sendable func read(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let environment = try AdminRequest.environment(context, backend: backend)
        let name = context.parameters.get("schema") ?? ""
        guard let declaration = try await environment.datastore.declarations().first(where: { $0.name == name }) else {
            throw AdminError.notFound("The schema '\(name)'")
        }
        return JSONResponse.make(declaration.json)
    }

    @Sendable func apply(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let environment = try AdminRequest.environment(context, backend: backend)
        let declarations = try Self.declarations(try await AdminRequest.body(request))
        return try await run(declarations, in: environment, dryRun: false, action: "schemas.apply", context: context)
    }

    @Sendable func deploy(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let target = try AdminRequest.environment(context, backend: backend)
        let body = try await AdminRequest.body(request)
        let dryRun = body.objectValue?["dry_run"] == .bool(true)
        let declarations: [SchemaDeclaration]
        if let from = body.objectValue?["from"] {
            guard let name = from.stringValue, let kind = EnvironmentKind(rawValue: name) else {
                throw AdminError.badInput(key: "from", "must be development or production")
            }
            declarations = try await backend.environment(kind).datastore.declarations()
        } else {
            var document = body.objectValue ?? [:]
            document["dry_run"] = nil
            declarations = try Self.declarations(.object(document))
        }
        return try await run(declarations, in: target, dryRun: dryRun, action: "deploy", context: context)
    }

    private func run(
        _ declarations: [SchemaDeclaration], in environment: AppEnvironment, dryRun: Bool, action: String, context: StackMobRequestContext
    ) async throws -> Response {
        let operatorName = try AdminRequest.operatorName(context)
        let datastore = environment.datastore
        var plan = try await datastore.plan(declarations)
        if let missing = plan.conflicts.first(where: \.isMissingTarget) {
            throw AdminError.badInput(key: "schemas.\(missing.schema).fields.\(missing.field)", missing.reason)
        }
        if let conflict = plan.conflicts.first { throw AdminError.conflict(conflict.description) }
        for change in plan.changes {
            if case .setPermissions(let schema, _) = change, datastore.configuredPermissionSchemas.contains(schema) {
                throw AdminError.conflict("The permissions of '\(schema)' are set in the configuration; change them there")
            }
        }
        if !dryRun && !plan.changes.isEmpty {
            do {
                plan = try await datastore.deploy(declarations)
            } catch let conflict as SchemaConflict {
                throw AdminError.conflict(conflict.description)
            }
            try await backend.operators.audit(
                operatorName, action: action,
                detail: ["environment": .string(environment.kind.rawValue), "changes": .array(plan.changes.map { .string($0.description) })])
            context.logger.notice("Schemas changed", metadata: ["sm.operator": "\(operatorName)", "sm.environment": "\(environment.kind.rawValue)"])
        }
        return JSONResponse.make(plan.json(applied: !dryRun && !plan.changes.isEmpty))
    }

    /// `{"schemas": {…}}`; a bad key, name, type or level is a 400 naming the key.
    static func declarations(_ body: JSONValue) throws -> [SchemaDeclaration] {
        do {
            return try SchemaDeclarations.parseDocument(body, source: "body").values.sorted { $0.name < $1.name }
        } catch {
            throw AdminError.badInput(key: String(error.key.dropFirst("body.".count)), error.problem)
        }
    }
}
