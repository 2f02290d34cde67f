import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Enterprise single sign-on (issue 17): an organisation's SAML identity
 * providers and LDAP directories. `config` holds the type's settings that are
 * not secret (an LDAP bind password and a SAML SP private key are sealed with
 * SIGNING_KEY_SECRET in `secret_sealed`, never returned). The email domains a
 * connection signs in are rows of `sso_email_domains`, unique across every
 * organisation: the sign-in page routes an email by its domain before it
 * knows whose it is.
 */
export class SsoConnections1764100800000 implements MigrationInterface {
  name = 'SsoConnections1764100800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "sso_connections" ("id" uuid NOT NULL, "organization_id" uuid NOT NULL, "mode" text NOT NULL, "type" text NOT NULL, "name" text NOT NULL, "email_domains" text[] NOT NULL, "default_scopes" text[] NOT NULL, "group_scopes" jsonb NOT NULL DEFAULT '{}', "jit_provisioning" boolean NOT NULL DEFAULT true, "enabled" boolean NOT NULL DEFAULT true, "config" jsonb NOT NULL, "secret_sealed" text, "metadata_fetched_at" timestamptz, "created_at" timestamptz NOT NULL DEFAULT now(), "updated_at" timestamptz NOT NULL DEFAULT now(), CONSTRAINT "PK_sso_connections" PRIMARY KEY ("id"), CONSTRAINT "CHK_sso_connections_type" CHECK ("type" IN ('saml', 'ldap')), CONSTRAINT "CHK_sso_connections_mode" CHECK ("mode" IN ('live', 'test')), CONSTRAINT "FK_sso_connections_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE)`,
    );
    await queryRunner.query(
      `CREATE INDEX "sso_connections_tenant_created_idx" ON "sso_connections" ("organization_id", "mode", "created_at", "id")`,
    );
    await queryRunner.query(
      `CREATE TABLE "sso_email_domains" ("domain" text NOT NULL, "connection_id" uuid NOT NULL, CONSTRAINT "PK_sso_email_domains" PRIMARY KEY ("domain"), CONSTRAINT "FK_sso_email_domains_connection" FOREIGN KEY ("connection_id") REFERENCES "sso_connections"("id") ON DELETE CASCADE)`,
    );
    await queryRunner.query(
      `CREATE INDEX "sso_email_domains_connection_idx" ON "sso_email_domains" ("connection_id")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "sso_email_domains"`);
    await queryRunner.query(`DROP TABLE "sso_connections"`);
  }
}
