import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** Random secrets every API instance must share (cookie-signing keys), sealed like private keys. */
@Entity({ name: 'server_secrets' })
export class ServerSecretEntity {
  @PrimaryColumn({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  value!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
