import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MEMBER_ROLES, type IdentitySource, type MemberRole } from '#auth';
import { ANALYST_STATUSES, WORK_KINDS, type AnalystStatus } from '#analysts';
import { RateDto } from '../../http/rate.dto.js';
import { V2List } from '../../http/v2-list.js';
import { ANALYST_ID } from './analyst-v2.dto.js';

/** A member as the people API shows them, whatever their roles (never a password or token). */
export class AnalystDto {
  @ApiProperty({ example: ANALYST_ID.example })
  analyst_id!: string;

  @ApiProperty({ example: 'ada@example.com' })
  email!: string;

  @ApiProperty({ example: 'Ada Lovelace' })
  name!: string;

  @ApiProperty({ enum: MEMBER_ROLES, isArray: true, example: ['analyst'] })
  roles!: MemberRole[];

  @ApiProperty({
    enum: ['local', 'saml', 'ldap'],
    description: '`local`, or the kind of SSO connection they last signed in through',
  })
  identity_source!: IdentitySource;

  @ApiProperty({
    description:
      'True while your identity provider manages them through SCIM (`/scim/v2`): change them there, or your next sync changes them back',
  })
  scim_managed!: boolean;

  @ApiProperty({
    enum: ANALYST_STATUSES,
    description:
      '`invited`: has neither set a password nor signed in through SSO yet; `active`: can sign in; `disabled`: removed (history kept)',
  })
  status!: AnalystStatus;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When the open invitation stops working; null when there is none',
  })
  invitation_expires_at!: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  last_sign_in_at!: string | null;
}

/** A member just created or re-invited. */
export class AnalystCreatedDto extends AnalystDto {
  @ApiPropertyOptional({
    example: 'https://api.example.com/invitations/3q2-7wEjQ2dn1H7x0Rz1Ghk2e8cN4wq6qfS2W0S6E0o',
    description:
      'Only when invited (no `password` given): the one-time link where they set their password, shown this once (only its hash is kept). Send it to them; it works for 7 days. Once they have set it, they sign in wherever the organisation sends them (its applications use the authorization code flow). If the organisation signs people in through SSO they may ignore it: an SSO sign-in of the same email lands on this account.',
  })
  invitation_url?: string;
}

export class TrackRecordDto {
  @ApiProperty({ type: 'integer', description: 'Judged trials (one per judged piece of work)' })
  trials!: number;

  @ApiProperty({ type: 'integer', description: 'Trials the judge ranked the true target first' })
  hits!: number;

  @ApiProperty({
    type: RateDto,
    description:
      'hits / trials with the Wilson 95 % interval and the exact one-sided p-value against chance (1 / judging set size per trial; `baseline` their mean)',
  })
  hit_rate!: RateDto;

  @ApiProperty({
    type: Number,
    nullable: true,
    minimum: 0,
    maximum: 1,
    description:
      'Mean SAIC accuracy over the trials whose target had ground-truth descriptors; null when none had',
  })
  saic_accuracy!: number | null;

  @ApiProperty({ type: Number, nullable: true, minimum: 0, maximum: 1 })
  saic_reliability!: number | null;

  @ApiProperty({
    enum: ['track_record', 'prior'],
    description:
      '`prior`: too few judged trials to rest on, so their work is weighted by chance alone; `track_record`: the record is used',
  })
  evidence!: 'track_record' | 'prior';

  @ApiProperty({
    example:
      '12 judged trials, 5 hits: 41.7 % (95 % CI 19.3–68.0 %) against 20 % by chance, p = 0.0523.',
    description: 'The record in one plain sentence, saying when it is too thin to rest on',
  })
  summary!: string;
}

export class TrackRecordsByKindDto {
  @ApiProperty({ type: TrackRecordDto, description: 'Remote-viewing sessions' })
  session!: TrackRecordDto;

  @ApiProperty({ type: TrackRecordDto, description: 'Target analyses' })
  analysis!: TrackRecordDto;

  @ApiProperty({ type: TrackRecordDto, description: 'Dowsing queries' })
  dowsing!: TrackRecordDto;
}

export class ModalityTrackRecordDto extends TrackRecordDto {
  @ApiProperty({ enum: WORK_KINDS })
  kind!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The modality of the work (null: work without one)',
  })
  modality!: string | null;
}

export class AnalystTrackRecordDto extends TrackRecordDto {
  @ApiProperty({ type: TrackRecordsByKindDto, description: 'The same, for each kind of work' })
  by_kind!: TrackRecordsByKindDto;

  @ApiProperty({
    type: [ModalityTrackRecordDto],
    description:
      'The same for each kind of work and modality the analyst has judged trials in (the records their contribution weights come from)',
  })
  by_modality!: ModalityTrackRecordDto[];
}

/** One member, with their track record. */
export class AnalystDetailDto extends AnalystDto {
  @ApiProperty({
    type: AnalystTrackRecordDto,
    description:
      'Their judged trials (live work only) over every kind of work, then by kind; 0 trials for someone never judged',
  })
  track_record!: AnalystTrackRecordDto;
}

export class AnalystListDto extends V2List(AnalystDto) {}
