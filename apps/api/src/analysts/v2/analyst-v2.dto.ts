import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsString,
  MaxLength,
} from 'class-validator';
import { MAX_PASSWORD_LENGTH, MEMBER_ROLES, type MemberRole } from '#auth';
import { ANALYST_STATUSES, MIN_PASSWORD_LENGTH, type AnalystStatus } from '#analysts';
import { IsOptional } from 'class-validator';
import { Optional } from '../../http/dto-decorators.js';
import type { RequestExamples } from '../../http/request-examples.js';
import { oneOf } from '../../http/validation-messages.js';
import { V2ListQueryDto } from '../../http/v2-list.js';
import { SingleLineText } from '../../http/text-rules.js';

export const ANALYST_ID = {
  example: 'analyst_01jh2x7v4ke8rbk3a8y0v0d7qz',
  description: "The member's id (the same person's token subject is `usr_…`)",
};
const TEXT = { message: 'must be text' };

const ROLES_DESCRIPTION =
  '`admin` runs the organisation (this API, work, targets, results); `analyst` is tasked blind work; `judge` ranks submissions blind against decoys. Several allowed; at least one.';

export class CreateAnalystDto {
  @ApiProperty({
    example: 'ada@example.com',
    maxLength: 254,
    description:
      'Their sign-in email, one account across the service: an email of another organisation is 409, and one already in this organisation is 409 naming the member to change instead. An SSO sign-in of the same email lands on this account.',
  })
  @IsString(TEXT)
  @MaxLength(254, { message: 'must be an email address' })
  email!: string;

  @ApiPropertyOptional({
    example: 'Ada Lovelace',
    maxLength: 200,
    description: 'Defaults to the part of the email before @',
  })
  @Optional()
  @IsString(TEXT)
  @MaxLength(200, { message: 'must be 1–200 characters' })
  @SingleLineText()
  name?: string;

  @ApiPropertyOptional({
    enum: MEMBER_ROLES,
    isArray: true,
    minItems: 1,
    maxItems: MEMBER_ROLES.length,
    default: ['analyst'],
    description: ROLES_DESCRIPTION,
  })
  @Optional()
  @IsArray({ message: `must be a list of roles (${MEMBER_ROLES.join(', ')})` })
  @ArrayMinSize(1, { message: `must name at least one of ${MEMBER_ROLES.join(', ')}` })
  @ArrayMaxSize(MEMBER_ROLES.length, { message: 'must name each role at most once' })
  @IsIn(MEMBER_ROLES, { each: true, ...oneOf(MEMBER_ROLES) })
  roles?: MemberRole[];

  @ApiPropertyOptional({
    minLength: MIN_PASSWORD_LENGTH,
    maxLength: MAX_PASSWORD_LENGTH,
    format: 'password',
    description: `A local account's password (at least ${MIN_PASSWORD_LENGTH} characters), stored only as an argon2id hash. Leave it out to invite the person instead: the answer carries a one-time \`invitation_url\` for them to set it.`,
  })
  @Optional()
  @IsString(TEXT)
  @MaxLength(MAX_PASSWORD_LENGTH, { message: `must be at most ${MAX_PASSWORD_LENGTH} characters` })
  password?: string;
}

export class UpdateAnalystDto {
  @ApiPropertyOptional({ example: 'Ada King', maxLength: 200 })
  @Optional()
  @IsString(TEXT)
  @MaxLength(200, { message: 'must be 1–200 characters' })
  @SingleLineText()
  name?: string;

  @ApiPropertyOptional({
    enum: MEMBER_ROLES,
    isArray: true,
    minItems: 1,
    maxItems: MEMBER_ROLES.length,
    description: `${ROLES_DESCRIPTION} Replaces the member's roles. Losing \`analyst\` gives their open assignments back (others are picked); gaining \`judge\` takes judging tasks waiting for a judge.`,
  })
  @Optional()
  @IsArray({ message: `must be a list of roles (${MEMBER_ROLES.join(', ')})` })
  @ArrayMinSize(1, { message: `must name at least one of ${MEMBER_ROLES.join(', ')}` })
  @ArrayMaxSize(MEMBER_ROLES.length, { message: 'must name each role at most once' })
  @IsIn(MEMBER_ROLES, { each: true, ...oneOf(MEMBER_ROLES) })
  roles?: MemberRole[];

  @ApiPropertyOptional({
    description:
      'true: they can no longer sign in, their tokens stop working at once and their open assignments go to others (their history stays); false: enabled again',
  })
  @Optional()
  @IsBoolean({ message: 'must be true or false' })
  disabled?: boolean;
}

export class AnalystListQueryDto extends V2ListQueryDto {
  @ApiPropertyOptional({ enum: MEMBER_ROLES, description: 'Members with this role' })
  @IsOptional()
  @IsIn(MEMBER_ROLES, oneOf(MEMBER_ROLES))
  role?: MemberRole;

  @ApiPropertyOptional({ enum: ANALYST_STATUSES, description: 'Members in this status' })
  @IsOptional()
  @IsIn(ANALYST_STATUSES, oneOf(ANALYST_STATUSES))
  status?: AnalystStatus;
}

export const CREATE_ANALYST_EXAMPLES: RequestExamples = {
  invite: {
    summary: 'Invite an analyst (they set their password through the link)',
    value: { email: 'ada@example.com', name: 'Ada Lovelace', roles: ['analyst'] },
  },
  local: {
    summary: 'A judge who is also an analyst, with a local password',
    value: {
      email: 'grace@example.com',
      name: 'Grace Hopper',
      roles: ['analyst', 'judge'],
      password: 'correct horse battery staple',
    },
  },
};

export const UPDATE_ANALYST_EXAMPLES: RequestExamples = {
  roles: { summary: 'Make them a judge too', value: { roles: ['analyst', 'judge'] } },
  disable: { summary: 'Stop them signing in', value: { disabled: true } },
};
