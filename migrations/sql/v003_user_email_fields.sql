-- The e-mail field of a user schema marked by a client with `X-StackMob-FieldTypes:
-- <field>=forgotpassword` (PROTOCOL §6.6); the configured `email_field` takes precedence.
CREATE TABLE _sm_user_email_fields (
    user_schema TEXT PRIMARY KEY NOT NULL,
    field TEXT NOT NULL
);
